/* json_strict.c — read JSON strictly (json_strict.h): cJSON parses, then one
 * walk over the tree finds duplicate keys and control characters. */
#include "json_strict.h"

#include "file_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- positions in the text ------------------------------------------------ */

static void line_col(const char *buf, const char *pos, long *line, long *col) {
    *line = 1;
    *col = 1;
    for (const char *p = buf; p < pos; p++) {
        if (*p == '\n') (*line)++, *col = 1;
        else (*col)++;
    }
}

/* Up to 24 bytes at pos, printable ASCII only (the message reaches a
 * terminal). */
static void near_text(const char *pos, const char *end, char *out, size_t len) {
    size_t k = 0;
    for (const char *p = pos; p < end && k + 1 < len && k < 24 && *p != '\n' && *p != '\r'; p++)
        out[k++] = (*p >= 32 && *p < 127) ? *p : '?';
    out[k] = '\0';
}

/* ---- paths ----------------------------------------------------------------- */

/* One step of the path from the root to a value: a key of an object or an
 * index of an array. Built on the stack as the walk descends; turned into
 * text ("cases[2].results[0].op") only for a message. */
typedef struct step {
    const struct step *up;
    const char *key; /* NULL: an array index */
    size_t index;
} step;

/* A key as a path shows it: printable ASCII, the rest as '?', cut at 64. */
static size_t put_key(char *buf, size_t len, size_t off, const char *key) {
    for (size_t i = 0; key[i] && i < 64 && off + 1 < len; i++) {
        unsigned char ch = (unsigned char)key[i];
        buf[off++] = (ch >= 32 && ch < 127) ? (char)ch : '?';
    }
    buf[off < len ? off : len - 1] = '\0';
    return off;
}

static void path_text(const step *s, char *buf, size_t len) {
    const step *chain[64];
    size_t n = 0, off = 0;
    for (const step *p = s; p && p->up; p = p->up) /* the root has no step of its own */
        if (n < 64) chain[n++] = p;
    buf[0] = '\0';
    if (n == 0) {
        snprintf(buf, len, "top level");
        return;
    }
    for (size_t i = n; i-- > 0 && off + 1 < len;) {
        const step *p = chain[i];
        if (p->key) {
            if (off && off + 1 < len) buf[off++] = '.';
            off = put_key(buf, len, off, p->key);
        } else {
            int w = snprintf(buf + off, len - off, "[%zu]", p->index);
            off = w < 0 ? len - 1 : off + (size_t)w;
            if (off >= len) off = len - 1;
        }
    }
    buf[off] = '\0';
}

/* ---- the checks ------------------------------------------------------------ */

typedef struct {
    const char *name;
    gb_err *e;
} walker;

/* The first control character of s (see json_strict.h), as a code point, or
 * 0 when none. in_key: tab and newline are refused too. */
static unsigned control_char(const char *s, int in_key) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20) {
            if (!in_key && (*p == '\t' || *p == '\n')) continue;
            return *p;
        }
        if (*p == 0x7f) return 0x7f;
        /* C1 controls U+0080..U+009F are 0xC2 0x80..0x9F in UTF-8. */
        if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) return p[1];
    }
    return 0;
}

/* Replace in place what control_char refuses by '?'. */
static void scrub_string(char *s, int in_key) {
    for (unsigned char *p = (unsigned char *)s; p && *p; p++) {
        if ((*p < 0x20 && (in_key || (*p != '\t' && *p != '\n'))) || *p == 0x7f) *p = '?';
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) p[0] = p[1] = '?';
    }
}

void gb_json_scrub(cJSON *v) {
    for (; v; v = v->next) {
        if (v->string) scrub_string(v->string, 1);
        if (cJSON_IsString(v)) scrub_string(v->valuestring, 0);
        if (v->child) gb_json_scrub(v->child);
    }
}

static int check_string(walker *w, const step *at, const char *s, int in_key) {
    unsigned c = control_char(s, in_key);
    if (!c) return 0;
    char path[512];
    path_text(at, path, sizeof path);
    gb_errf(w->e, GB_FAIL,
            "%s: %s: control character U+%04X in a %s (not allowed: nothing read from a file may reach a "
            "terminal as an escape sequence)",
            w->name, path, c, in_key ? "key" : "string");
    return -1;
}

typedef struct {
    const char *key;
    size_t pos;
} keyat;

static int keyat_cmp(const void *a, const void *b) {
    const keyat *x = a, *y = b;
    int d = strcmp(x->key, y->key);
    if (d) return d;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static int duplicate(walker *w, const step *at, const char *key, size_t first, size_t again) {
    char path[512], k[80];
    path_text(at, path, sizeof path);
    put_key(k, sizeof k, 0, key);
    gb_errf(w->e, GB_FAIL, "%s: %s: duplicate key \"%s\" (keys %zu and %zu of that object; a key may appear once)",
            w->name, path, k, first + 1, again + 1);
    return -1;
}

/* Duplicate keys of obj: pairwise for a few keys, else by sorting. */
static int check_keys(walker *w, const step *at, const cJSON *obj) {
    size_t n = 0;
    for (const cJSON *c = obj->child; c; c = c->next) n++;
    if (n < 2) return 0;
    if (n <= 16) {
        size_t i = 0;
        for (const cJSON *a = obj->child; a; a = a->next, i++) {
            size_t j = i + 1;
            for (const cJSON *b = a->next; b; b = b->next, j++)
                if (!strcmp(a->string, b->string)) return duplicate(w, at, a->string, i, j);
        }
        return 0;
    }
    keyat *ks = malloc(n * sizeof *ks);
    if (!ks) return gb_errf(w->e, GB_FAIL, "%s: out of memory", w->name), -1;
    size_t i = 0;
    for (const cJSON *c = obj->child; c; c = c->next, i++) ks[i] = (keyat){c->string, i};
    qsort(ks, n, sizeof *ks, keyat_cmp);
    int rc = 0;
    for (i = 1; i < n && rc == 0; i++)
        if (!strcmp(ks[i - 1].key, ks[i].key)) rc = duplicate(w, at, ks[i].key, ks[i - 1].pos, ks[i].pos);
    free(ks);
    return rc;
}

static int walk(walker *w, const step *at, const cJSON *v) {
    if (cJSON_IsString(v)) return check_string(w, at, v->valuestring ? v->valuestring : "", 0);
    if (cJSON_IsObject(v)) {
        if (check_keys(w, at, v) < 0) return -1;
        for (const cJSON *c = v->child; c; c = c->next) {
            step s = {at, c->string ? c->string : "", 0};
            if (check_string(w, &s, c->string ? c->string : "", 1) < 0 || walk(w, &s, c) < 0) return -1;
        }
    } else if (cJSON_IsArray(v)) {
        size_t i = 0;
        for (const cJSON *c = v->child; c; c = c->next, i++) {
            step s = {at, NULL, i};
            if (walk(w, &s, c) < 0) return -1;
        }
    }
    return 0;
}

int gb_json_check_tree(const cJSON *doc, const char *name, gb_err *e) {
    walker w = {name, e};
    step root = {NULL, NULL, 0};
    return walk(&w, &root, doc) == 0 ? GB_OK : GB_FAIL;
}

/* ---- parsing --------------------------------------------------------------- */

int gb_json_parse_strict(const char *text, size_t len, const char *name, cJSON **out, gb_err *e) {
    *out = NULL;
    long line, col;
    char near[32];
    if (len > GB_JSON_MAX_BYTES)
        return gb_errf(e, GB_FAIL, "%s: %zu bytes, more than the %zu this gpubench reads", name, len,
                       (size_t)GB_JSON_MAX_BYTES);
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        line_col(text, nul, &line, &col);
        return gb_errf(e, GB_FAIL, "%s: a NUL byte at line %ld, column %ld (a JSON file is text)", name, line, col);
    }
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!doc) {
        const char *pos = cJSON_GetErrorPtr();
        if (!pos || pos < text || pos > text + len) pos = text + len;
        line_col(text, pos, &line, &col);
        near_text(pos, text + len, near, sizeof near);
        if (!near[0]) return gb_errf(e, GB_FAIL, "%s: line %ld: malformed JSON (unexpected end of file)", name, line);
        return gb_errf(e, GB_FAIL, "%s: line %ld, column %ld: malformed JSON near '%s'", name, line, col, near);
    }
    /* Only white space may follow the document. */
    const char *p = end ? end : text + len;
    while (p < text + len && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    if (p < text + len) {
        cJSON_Delete(doc);
        line_col(text, p, &line, &col);
        near_text(p, text + len, near, sizeof near);
        return gb_errf(e, GB_FAIL, "%s: line %ld, column %ld: unexpected bytes after the JSON document near '%s'", name,
                       line, col, near);
    }
    if (gb_json_check_tree(doc, name, e) != GB_OK) {
        cJSON_Delete(doc);
        return GB_FAIL;
    }
    *out = doc;
    return GB_OK;
}

int gb_json_read_limited(const char *path, const char *what, size_t limit, cJSON **out, gb_err *e) {
    *out = NULL;
    char *buf;
    size_t len;
    if (gb_read_bounded(path, what, limit, &buf, &len, e) != GB_OK) return GB_FAIL;
    int rc = gb_json_parse_strict(buf, len, strcmp(path, "-") ? path : "<stdin>", out, e);
    free(buf);
    return rc;
}
