/* test_results_schema.c — the results format's table (src/results/
 * results_format.c) against what is published from it: docs/results.schema.json
 * is made from the table here (GB_WRITE_SCHEMA=1 writes it; otherwise a stale
 * file fails), docs/results-schema.md lists every field of the table, and
 * every committed results file under results/ passes the JSON Schema
 * (python3-jsonschema, scripts/dev/install-deps.sh --test). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "results_model_internal.h"
#include "testlib.h"

#define SCHEMA "docs/results.schema.json"

static cJSON *num_schema(const gb_rm_field *f, const char *type) {
    cJSON *s = cJSON_CreateObject();
    if (f->flags & N_NULL) {
        cJSON *t = cJSON_AddArrayToObject(s, "type");
        cJSON_AddItemToArray(t, cJSON_CreateString(type));
        cJSON_AddItemToArray(t, cJSON_CreateString("null"));
    } else {
        cJSON_AddStringToObject(s, "type", type);
    }
    if (f->flags & N_POS) cJSON_AddNumberToObject(s, "exclusiveMinimum", 0);
    else if (f->flags & (N_NONNEG | N_COUNT)) cJSON_AddNumberToObject(s, "minimum", 0);
    return s;
}

static cJSON *typed(const char *type) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", type);
    return s;
}

static cJSON *ref(const gb_rm_type *t) {
    char r[96];
    snprintf(r, sizeof r, "#/$defs/%s", t->name);
    for (char *p = r; *p; p++) if (*p == ' ') *p = '_';
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "$ref", r);
    return s;
}

static cJSON *array_of(cJSON *items) {
    cJSON *s = typed("array");
    cJSON_AddItemToObject(s, "items", items);
    return s;
}

static cJSON *field_schema(const gb_rm_field *f) {
    cJSON *s = NULL;
    switch (f->kind) {
    case F_STR: s = typed("string"); break;
    case F_STR_NULL: s = cJSON_CreateObject(), cJSON_AddItemToObject(s, "type", cJSON_CreateStringArray((const char *[]){"string", "null"}, 2)); break;
    case F_NUM: s = num_schema(f, "number"); break;
    case F_LONG: case F_SIZE: s = num_schema(f, "integer"); break;
    case F_INT: s = typed("integer"), cJSON_AddNumberToObject(s, "minimum", 0); break;
    case F_BOOL: s = typed("boolean"); break;
    case F_ENUM: {
        s = cJSON_CreateObject();
        cJSON *e = cJSON_AddArrayToObject(s, "enum");
        for (int i = 0; f->en->names[i]; i++) cJSON_AddItemToArray(e, cJSON_CreateString(f->en->names[i]));
        break;
    }
    case F_KVLIST: case F_JSON: case F_CONTEXT: s = typed("object"); break;
    case F_PEAKS: s = typed("object"), cJSON_AddItemToObject(s, "additionalProperties", typed("object")); break;
    case F_STRLIST: s = array_of(typed("string")); break;
    case F_OBJ: s = ref(f->sub); break;
    case F_ARR: s = array_of(ref(f->sub)); break;
    case F_DOUBLES: s = array_of(num_schema(&(gb_rm_field){.flags = N_POS}, "number")); break;
    case F_SIZES: s = array_of(num_schema(&(gb_rm_field){.flags = N_NONNEG}, "integer")); break;
    case F_PAIR: s = array_of(typed("number")), cJSON_AddNumberToObject(s, "minItems", 2), cJSON_AddNumberToObject(s, "maxItems", 2); break;
    case F_SPEEDUPS: s = typed("object"), cJSON_AddItemToObject(s, "additionalProperties", num_schema(&(gb_rm_field){.flags = N_POS}, "number")); break;
    case F_NONE: s = cJSON_CreateObject(); break;
    }
    if (f->doc) cJSON_AddStringToObject(s, "description", f->doc);
    return s;
}

static cJSON *type_schema(const gb_rm_type *t) {
    cJSON *s = typed("object"), *props = cJSON_AddObjectToObject(s, "properties"), *req = cJSON_CreateArray();
    for (size_t i = 0; i < t->nfields; i++) {
        const gb_rm_field *f = &t->fields[i];
        if (!f->key) continue;
        cJSON *fs;
        const gb_rm_field *rf = t == &gb_rm_t_doc && f->kind == F_NONE ? gb_rm_field_of(&gb_rm_t_run, f->key) : NULL;
        if (!strcmp(f->key, "schema") && t == &gb_rm_t_doc) {
            fs = field_schema(f), cJSON_AddStringToObject(fs, "const", GB_RESULTS_SCHEMA);
        } else if (!strcmp(f->key, "schema_version") && t == &gb_rm_t_doc) {
            fs = field_schema(f), cJSON_AddStringToObject(fs, "type", "integer"), cJSON_AddNumberToObject(fs, "minimum", 1);
        } else {
            fs = field_schema(rf ? rf : f);
        }
        cJSON_AddItemToObject(props, f->key, fs);
        if ((f->flags & (REQ | N_REQ)) || (t == &gb_rm_t_doc && f->kind == F_NONE && !rf) ||
            (t == &gb_rm_t_result && !strcmp(f->key, "status")) || (f->kind == F_ENUM && !(t == &gb_rm_t_result)))
            cJSON_AddItemToArray(req, cJSON_CreateString(f->key));
    }
    cJSON_AddItemToObject(s, "required", req);
    return s;
}

/* The JSON Schema of the format, as text. */
static char *make_schema(void) {
    cJSON *s = type_schema(&gb_rm_t_doc);
    cJSON *top = cJSON_CreateObject();
    cJSON_AddStringToObject(top, "$schema", "https://json-schema.org/draft/2020-12/schema");
    cJSON_AddStringToObject(top, "$id", "https://github.com/gpubench/gpubench/docs/results.schema.json");
    cJSON_AddStringToObject(top, "title", "gpubench results file (made from src/results/results_format.c: "
                                          "GB_WRITE_SCHEMA=1 make test T=results_schema)");
    for (cJSON *c = s->child; c;) {
        cJSON *next = c->next;
        cJSON_AddItemToObject(top, c->string, cJSON_DetachItemViaPointer(s, c));
        c = next;
    }
    cJSON_Delete(s);
    cJSON *defs = cJSON_AddObjectToObject(top, "$defs");
    for (int i = 1; gb_rm_types[i]; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s", gb_rm_types[i]->name);
        for (char *p = name; *p; p++) if (*p == ' ') *p = '_';
        cJSON_AddItemToObject(defs, name, type_schema(gb_rm_types[i]));
    }
    char *text = cJSON_Print(top);
    cJSON_Delete(top);
    return text;
}

TEST(results_schema_json_is_the_one_made_from_the_format_table) {
    char *made = make_schema();
    CHECK(made != NULL);
    const char *w = getenv("GB_WRITE_SCHEMA");
    if (w && !strcmp(w, "1")) {
        FILE *f = fopen(SCHEMA, "w");
        CHECK(f && fprintf(f, "%s\n", made) > 0 && fclose(f) == 0);
    }
    char *have = gb_test_slurp(SCHEMA, NULL);
    int same = have && strlen(have) == strlen(made) + 1 && !strncmp(have, made, strlen(made));
    if (!same) fprintf(stderr, "    %s is stale: GB_WRITE_SCHEMA=1 make test T=results_schema writes it\n", SCHEMA);
    CHECK(same);
    free(have);
    free(made);
}

/* Every field of the table is a row of docs/results-schema.md ("Field by field");
 * an object met again (a run's summary) is described where it is first met,
 * nearest the top (breadth first). */
static int doc_has_all(const char *doc) {
    struct { const gb_rm_type *t; char path[200]; } q[64];
    size_t head = 0, tail = 0;
    const gb_rm_type *seen[64];
    size_t nseen = 0;
    int ok = 1;
    q[tail].t = &gb_rm_t_doc, q[tail++].path[0] = '\0';
    seen[nseen++] = &gb_rm_t_doc;
    while (head < tail) {
        const gb_rm_type *t = q[head].t;
        const char *path = q[head++].path;
        for (size_t i = 0; i < t->nfields; i++) {
            const gb_rm_field *f = &t->fields[i];
            char p[256], row[300];
            if (!f->key) continue;
            snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", f->key);
            snprintf(row, sizeof row, "\n| `%s` |", p);
            if (!strstr(doc, row)) {
                fprintf(stderr, "    docs/results-schema.md: no row for `%s` (a field of the format's table)\n", p);
                ok = 0;
            }
            if (f->kind != F_OBJ && f->kind != F_ARR) continue;
            int again = 0;
            for (size_t j = 0; j < nseen; j++) again |= seen[j] == f->sub;
            if (again || tail == 64 || nseen == 64) continue;
            seen[nseen++] = f->sub;
            q[tail].t = f->sub;
            /* a path longer than the queue's slot is cut (a test label only) */
            snprintf(q[tail++].path, sizeof q[0].path, "%.190s%s", p, f->kind == F_ARR ? "[]" : "");
        }
    }
    return ok;
}

TEST(results_schema_doc_lists_every_field_of_the_format_table) {
    char *doc = gb_test_slurp("docs/results-schema.md", NULL);
    CHECK(doc != NULL);
    CHECK(doc_has_all(doc));
    free(doc);
}

TEST(results_schema_every_committed_results_file_passes_the_json_schema) {
    char out[16384];
    int rc = gb_test_sh("/usr/bin/python3 -c 'import jsonschema' 2>&1", out, sizeof out);
    if (rc != 0) fprintf(stderr, "    python3-jsonschema is missing: scripts/dev/install-deps.sh --test\n");
    CHECK(rc == 0);
    rc = gb_test_sh("find results -name '*.json' | sort | xargs /usr/bin/python3 scripts/dev/validate-results.py "
                    SCHEMA " 2>&1", out, sizeof out);
    if (rc != 0) fprintf(stderr, "%s\n", out);
    CHECK(rc == 0);
}
