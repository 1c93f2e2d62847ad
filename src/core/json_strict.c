/* json_strict.c — read JSON strictly (json_strict.h): cJSON parses, then one
 * walk over the tree finds duplicate keys and control characters. */
#include "json_strict.h"

#include "file_read.h"

#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0 when the bytes
 * there are not one: a stray continuation byte, a sequence cut short, an
 * overlong form, a UTF-16 surrogate (U+D800..U+DFFF) or a code point past
 * U+10FFFF (RFC 3629). s is NUL-terminated, so a cut sequence stops at the
 * NUL, never past it. */
static size_t utf8_len(const unsigned char *p) {
    if (p[0] < 0x80) return 1;
    size_t n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    if (n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))) return 0; /* overlong, surrogate */
    if (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))) return 0; /* overlong, > U+10FFFF */
    return n;
}

long gb_utf8_invalid_at(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; p[i];) {
        size_t n = utf8_len(p + i);
        if (!n) return (long)i;
        i += n;
    }
    return -1;
}

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

/* Replace in place what control_char refuses, and each byte of what is not
 * UTF-8, by '?'. */
static void scrub_string(char *s, int in_key) {
    for (unsigned char *p = (unsigned char *)s; p && *p; p++) {
        if ((*p < 0x20 && (in_key || (*p != '\t' && *p != '\n'))) || *p == 0x7f) *p = '?';
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) p[0] = p[1] = '?';
        else if (*p >= 0x80) {
            size_t n = utf8_len(p);
            if (!n) *p = '?';
            else p += n - 1;
        }
    }
}

void gb_text_scrub(char *s) { scrub_string(s, 1); }

void gb_json_scrub(cJSON *v) {
    for (; v; v = v->next) {
        if (v->string) scrub_string(v->string, 1);
        if (cJSON_IsString(v)) scrub_string(v->valuestring, 0);
        if (v->child) gb_json_scrub(v->child);
    }
}

static int check_string(walker *w, const step *at, const char *s, int in_key) {
    char path[512];
    long bad_at = gb_utf8_invalid_at(s);
    if (bad_at >= 0) {
        path_text(at, path, sizeof path);
        gb_errf(w->e, GB_FAIL, "%s: %s: invalid UTF-8 at byte %ld of the %s (byte 0x%02X; text must be UTF-8)",
                w->name, path, bad_at + 1, in_key ? "key" : "string", (unsigned char)s[bad_at]);
        return -1;
    }
    unsigned c = control_char(s, in_key);
    if (!c) return 0;
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

/* ---- \u0000 -----------------------------------------------------------------
 * cJSON decodes the escape \u0000 into a NUL byte and the string ends there:
 * "matmul\u0000x" was read as "matmul", a param key "density\u0000zz" as
 * "density". The tree cannot show it, so the text is scanned for the first
 * string (keys included, in document order) holding one; a walk of the tree
 * in the same order then finds that string's path. Run on text cJSON has
 * accepted, so every string and escape in it is well formed. */
static int nul_escape(const char *text, size_t len, size_t *ordinal, size_t *offset) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '"') continue;
        for (i++; i < len && text[i] != '"'; i++) {
            if (text[i] != '\\') continue;
            if (i + 5 < len && text[i + 1] == 'u' && !memcmp(text + i + 2, "0000", 4)) {
                *ordinal = n;
                *offset = i;
                return 1;
            }
            i++; /* the escaped character (a \uXXXX's digits are plain characters) */
        }
        n++;
    }
    return 0;
}

typedef struct {
    size_t want, seen;
    int in_key;
    char path[512];
} string_finder;

/* The path of the want-th string of v, counted as nul_escape counts. */
static int find_string(string_finder *f, const step *at, const cJSON *v) {
    if (cJSON_IsString(v)) {
        if (f->seen++ != f->want) return 0;
        path_text(at, f->path, sizeof f->path);
        return 1;
    }
    size_t i = 0;
    for (const cJSON *c = v->child; c; c = c->next, i++) {
        step s = {at, cJSON_IsObject(v) ? (c->string ? c->string : "") : NULL, i};
        if (cJSON_IsObject(v) && f->seen++ == f->want) {
            path_text(&s, f->path, sizeof f->path);
            f->in_key = 1;
            return 1;
        }
        if (find_string(f, &s, c)) return 1;
    }
    return 0;
}

static int check_nul_escapes(const char *text, size_t len, const cJSON *doc, const char *name, gb_err *e) {
    size_t ordinal, offset;
    if (!nul_escape(text, len, &ordinal, &offset)) return 0;
    string_finder f = {ordinal, 0, 0, "top level"};
    step root = {NULL, NULL, 0};
    find_string(&f, &root, doc);
    long line, col;
    line_col(text, text + offset, &line, &col);
    gb_errf(e, GB_FAIL,
            "%s: %s: NUL character (\\u0000) in a %s at line %ld, column %ld (not allowed: the text would end "
            "there)",
            name, f.path, f.in_key ? "key" : "string", line, col);
    return -1;
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
    if (check_nul_escapes(text, len, doc, name, e) != 0 || gb_json_check_tree(doc, name, e) != GB_OK) {
        cJSON_Delete(doc);
        return GB_FAIL;
    }
    *out = doc;
    return GB_OK;
}

/* A file whose first byte past blanks cannot begin a JSON value is refused
 * from its first bytes, with the message the whole parse would give: a 2 GiB
 * sparse file of NUL bytes (within the results limit) was read whole, 12-16 s
 * and 2 GiB of memory, before "a NUL byte at line 1, column 1". */
static int refuse_plainly_not_json(const char *path, const char *what, size_t limit, gb_err *e) {
    int fd;
    size_t size;
    if (gb_open_bounded(path, what, limit, &fd, &size, e) != GB_OK) return GB_FAIL;
    char head[4096];
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    if (n <= 0) return GB_OK; /* empty or unreadable: the whole read says which */
    ssize_t i = n >= 3 && !memcmp(head, "\xEF\xBB\xBF", 3) ? 3 : 0; /* a UTF-8 byte order mark, as the parse takes */
    while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) i++;
    /* (strchr finds the terminator too: a NUL byte is tested apart) */
    if (i == n || (head[i] != '\0' && strchr("{[\"-0123456789tfn", head[i]))) return GB_OK;
    cJSON *doc = NULL;
    if (gb_json_parse_strict(head, (size_t)n, path, &doc, e) == GB_OK) { /* cannot be: the byte begins no value */
        cJSON_Delete(doc);
        return gb_errf(e, GB_FAIL, "%s: not JSON", path);
    }
    return GB_FAIL;
}

int gb_json_read_limited(const char *path, const char *what, size_t limit, cJSON **out, gb_err *e) {
    *out = NULL;
    char *buf;
    size_t len;
    if (strcmp(path, "-") && refuse_plainly_not_json(path, what, limit, e) != GB_OK) return GB_FAIL;
    if (gb_read_bounded(path, what, limit, &buf, &len, e) != GB_OK) return GB_FAIL;
    int rc = gb_json_parse_strict(buf, len, strcmp(path, "-") ? path : "<stdin>", out, e);
    free(buf);
    return rc;
}

cJSON *gb_json_num_or_null(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }
