/* test_schema_doc.c — the results schema document against real results
 * files. The field table of docs/results-schema.md ("Field by field") is
 * parsed here, not copied: every field of a file must be listed there with
 * its type, and every field listed "always" (and "new", in a file this
 * build wrote) must be in the file. Two files: the committed H100 reference
 * run, made on another machine, and one this test makes with a quick CPU run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "testlib.h"

#define DOC "docs/results-schema.md"

typedef struct {
    char path[160];
    char type[64];
    char presence[16];
    int seen;
} field;

typedef struct {
    field *f;
    size_t n;
    char (*objects)[256]; /* the paths of the objects walked (distinct): where "always" applies */
    size_t nobjects;
} fields;

static void saw_object(fields *fs, const char *path) {
    for (size_t i = 0; i < fs->nobjects; i++)
        if (!strcmp(fs->objects[i], path)) return;
    if (fs->nobjects < 4096) snprintf(fs->objects[fs->nobjects++], 256, "%s", path);
}


/* A table cell, trimmed, without its backticks. */
static const char *cell(const char *p, char *out, size_t len) {
    while (*p == ' ') p++;
    size_t n = strcspn(p, "|");
    size_t m = n;
    while (m > 0 && p[m - 1] == ' ') m--;
    const char *s = p;
    if (m >= 2 && s[0] == '`' && s[m - 1] == '`') s++, m -= 2;
    snprintf(out, len, "%.*s", (int)m, s);
    return p[n] == '|' ? p + n + 1 : p + n;
}

/* The rows "| `path` | type | presence | meaning |" of the section. */
static int parse_doc(fields *fs) {
    char *text = gb_test_slurp(DOC, NULL);
    if (!text) return -1;
    const char *sec = strstr(text, "\n## Field by field");
    fs->n = fs->nobjects = 0;
    fs->f = calloc(1024, sizeof *fs->f);
    fs->objects = calloc(4096, sizeof *fs->objects);
    for (const char *line = sec; line && fs->f; line = strchr(line + 1, '\n')) {
        const char *l = line + 1;
        if (!strncmp(l, "## ", 3) && l != sec + 1) break; /* the next section */
        if (strncmp(l, "| `", 3) || fs->n == 1024) continue;
        field *f = &fs->f[fs->n];
        const char *p = cell(l + 1, f->path, sizeof f->path);
        p = cell(p, f->type, sizeof f->type);
        cell(p, f->presence, sizeof f->presence);
        fs->n++;
    }
    free(text);
    return fs->n > 0 ? 0 : -1;
}

/* Does the documented path (with "*" for any key) name this one? Segments
 * are split at '.'; "[]" stays part of its segment. */
static int path_matches(const char *doc, const char *file) {
    while (*doc && *file) {
        size_t dn = strcspn(doc, "."), fn = strcspn(file, ".");
        if (doc[0] == '*') {
            /* "*" or "*[]": any key, then the same suffix */
            const char *suffix = doc + 1;
            size_t sn = dn - 1;
            if (fn < sn || strncmp(file + fn - sn, suffix, sn) != 0) return 0;
        } else if (dn != fn || strncmp(doc, file, dn) != 0) {
            return 0;
        }
        doc += dn + (doc[dn] == '.');
        file += fn + (file[fn] == '.');
    }
    return !*doc && !*file;
}

static const char *json_type(const cJSON *v) {
    if (cJSON_IsObject(v)) return "object";
    if (cJSON_IsArray(v)) return "array";
    if (cJSON_IsString(v)) return "string";
    if (cJSON_IsNumber(v)) return "number";
    if (cJSON_IsBool(v)) return "boolean";
    if (cJSON_IsNull(v)) return "null";
    return "?";
}

/* "number or null" lists the type as a whole word. */
static int type_ok(const char *doc_type, const char *t) {
    if (!strcmp(doc_type, "free-form")) return 1;
    size_t n = strlen(t);
    for (const char *p = doc_type; (p = strstr(p, t)); p += n)
        if ((p == doc_type || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ')) return 1;
    return 0;
}

static void walk(fields *fs, const cJSON *node, const char *path, const char *file, int *bad) {
    if (cJSON_IsObject(node)) saw_object(fs, path);
    for (const cJSON *c = node->child; c; c = c->next) {
        if (cJSON_IsArray(node)) { /* each object element, under "path" (= "...[]") */
            if (cJSON_IsObject(c)) walk(fs, c, path, file, bad);
            continue;             /* scalars in an array: the array's type says them */
        }
        char p[256];
        snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", c->string);
        field *f = NULL;
        for (size_t i = 0; i < fs->n && !f; i++)
            if (path_matches(fs->f[i].path, p)) f = &fs->f[i];
        if (!f) {
            fprintf(stderr, "    %s: %s is not in %s\n", file, p, DOC);
            (*bad)++;
            continue;
        }
        f->seen = 1;
        if (!type_ok(f->type, json_type(c))) {
            fprintf(stderr, "    %s: %s is %s, %s says %s\n", file, p, json_type(c), DOC, f->type);
            (*bad)++;
        }
        if (!strcmp(f->type, "free-form")) continue;
        if (cJSON_IsArray(c)) {
            char q[260];
            snprintf(q, sizeof q, "%s[]", p);
            walk(fs, c, q, file, bad);
        } else if (cJSON_IsObject(c)) {
            walk(fs, c, p, file, bad);
        }
    }
}

/* A field listed "always" must be in every object that can hold it: its
 * parent (the path without its last segment) was walked at least once. */
static int parent_walked(const fields *fs, const char *doc_path) {
    char parent[160];
    snprintf(parent, sizeof parent, "%s", doc_path);
    char *dot = strrchr(parent, '.');
    if (!dot) return 1; /* top level */
    *dot = '\0';
    for (size_t i = 0; i < fs->nobjects; i++)
        if (path_matches(parent, fs->objects[i])) return 1;
    return 0;
}

/* Walk one file; with fresh, "new" fields are required too. */
static void check_file(const char *path, int fresh) {
    fields fs;
    CHECK(parse_doc(&fs) == 0);
    CHECK(fs.n > 100);
    char *text = gb_test_slurp(path, NULL);
    CHECK(text != NULL);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    CHECK(doc != NULL);
    if (!doc || !fs.f) {
        free(fs.f);
        free(fs.objects);
        cJSON_Delete(doc);
        return;
    }
    int bad = 0;
    walk(&fs, doc, "", path, &bad);
    CHECK(bad == 0);
    for (size_t i = 0; i < fs.n; i++) {
        const field *f = &fs.f[i];
        CHECK(!strcmp(f->presence, "always") || !strcmp(f->presence, "new") || !strcmp(f->presence, "optional"));
        int required = (!strcmp(f->presence, "always") || (fresh && !strcmp(f->presence, "new"))) &&
                       parent_walked(&fs, f->path);
        if (required && !f->seen) fprintf(stderr, "    %s: lacks %s, which %s says is always there\n", path,
                                          f->path, DOC);
        CHECK(!required || f->seen);
    }
    cJSON_Delete(doc);
    free(fs.f);
    free(fs.objects);
}

TEST(schema_doc_matches_the_h100_reference_run) {
    check_file("results/reference/default-h100-newcomer.json", 0);
}

TEST(schema_doc_matches_a_fresh_cpu_run) {
    char cmd[1024], out[8192];
    snprintf(cmd, sizeof cmd,
             "%s run --op matmul,fft,svd --sizes 16,32 --max-time 100ms --min-time 2ms --rounds 1 --backend cpu "
             "--no-peak --quiet -o build/schema-run.json 2>&1",
             gb_test_binary());
    int rc = gb_test_sh(cmd, out, sizeof out);
    if (rc != 0) fprintf(stderr, "    %s\n", out);
    CHECK(rc == 0);
    check_file("build/schema-run.json", 1);
    /* and any other file this build wrote, e.g. a GPU run on the GPU host
     * (scripts/dev/gpu-host-check.sh see): GB_SCHEMA_EXTRA=FILE */
    const char *extra = getenv("GB_SCHEMA_EXTRA");
    if (extra && *extra) check_file(extra, 1);
}

/* The walker itself: an undocumented field and a wrong type are caught. */
TEST(schema_doc_check_catches_an_undocumented_field) {
    fields fs;
    CHECK(parse_doc(&fs) == 0);
    cJSON *doc = cJSON_Parse("{\"schema\":\"gpubench-results\",\"schema_version\":\"1\",\"no_such_field\":1,"
                             "\"cases\":[{\"op\":\"matmul\",\"results\":[{\"backend\":\"cpu\",\"bogus\":2}]}]}");
    int bad = 0;
    if (doc && fs.f) walk(&fs, doc, "", "(test)", &bad);
    CHECK(bad == 3); /* no_such_field, schema_version's type, cases[].results[].bogus */
    CHECK(path_matches("context.backends.*.timings[].name", "context.backends.cuda.timings[].name"));
    CHECK(!path_matches("context.backends.*.timings[].name", "context.backends.cuda.name"));
    cJSON_Delete(doc);
    free(fs.f);
    free(fs.objects);
}
