/* peer_backend.c — the framework peers' registration (peer.h): the
 * options, one gb_backend per framework asked for, and the contract's calls
 * as requests to that framework's worker. */
#include "peer.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "op.h"
#include "peer_worker.h"
#include "data_files.h"
#include "python.h"

static const char *const known[] = {"numpy", "scipy", "cupy", "torch", "jax", "noop", NULL};
#define PEER_MAX 6

typedef struct {
    char name[16];
    gb_peer_worker w;
    char python[PATH_MAX], script[PATH_MAX];
    cJSON *hello;          /* the worker's facts */
    int up;                /* init succeeded */
} peer;

static struct {
    int n;
    peer p[PEER_MAX];
    char python[PATH_MAX];  /* --python */
    double timeout_s;       /* --peer-timeout */
} g = {.timeout_s = 300};
static gb_backend backends[PEER_MAX];

static int set_peers(const char *v, gb_err *e) {
    g.n = 0;
    int all = !strcmp(v, "auto");
    if (all) {
        for (int i = 0; known[i] && strcmp(known[i], "noop"); i++) snprintf(g.p[g.n++].name, 16, "%s", known[i]);
        return GB_OK;
    }
    char buf[256];
    if (!*v || strlen(v) >= sizeof buf)
        return gb_errf(e, GB_FAIL, "--peers \"%.40s\": expected auto or a list of numpy, scipy, cupy, torch, jax", v);
    snprintf(buf, sizeof buf, "%s", v);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        int k = 0;
        while (known[k] && strcmp(known[k], t)) k++;
        if (!known[k])
            return gb_errf(e, GB_FAIL, "--peers: unknown framework \"%.40s\" (known: numpy, scipy, cupy, torch, jax, "
                           "noop; or auto)", t);
        for (int i = 0; i < g.n; i++)
            if (!strcmp(g.p[i].name, t)) return gb_errf(e, GB_FAIL, "--peers: \"%s\" named twice", t);
        snprintf(g.p[g.n++].name, 16, "%s", t);
    }
    return GB_OK;
}

static int set_python(const char *v, gb_err *e) {
    if (!*v) return gb_errf(e, GB_FAIL, "--python: an empty path");
    snprintf(g.python, sizeof g.python, "%s", v);
    return GB_OK;
}

static int set_timeout(const char *v, gb_err *e) {
    char *end;
    double t = strtod(v, &end);
    if (end == v || *end || !(t > 0) || t > 86400)
        return gb_errf(e, GB_FAIL, "--peer-timeout \"%.40s\": expected seconds, above 0 and up to 86400", v);
    g.timeout_s = t;
    return GB_OK;
}

static const gb_backend_flag flags[] = {
    {"peers", set_peers, "[--peers LIST|auto]",
     "  --peers LIST     frameworks measured beside the libraries, as backends of their own: numpy, scipy,\n"
     "                   cupy, torch, jax (comma list), or auto: every one that imports (docs/frameworks.md)\n"},
    {"python", set_python, "[--python PATH]",
     "  --python PATH    the interpreter of the peers' worker (as GPUBENCH_PYTHON; default /usr/bin/python3,\n"
     "                   then python3 on PATH)\n"},
    {"peer-timeout", set_timeout, "[--peer-timeout S]",
     "  --peer-timeout S a peer worker silent this long on one request is killed, the case skipped (300)\n"},
    {NULL, NULL, NULL, NULL}};
static const gb_backend_process process = {flags, NULL};
const gb_backend_process *gb_peer_process(void) { return &process; }
int gb_peer_count(void) { return g.n; }

/* ---- the contract -------------------------------------------------------- */

typedef struct {
    peer *p;
    const gb_case *c;
    unsigned long id;      /* the case's id in the worker (several are prepared at once) */
    char req[32];
} peer_state;
static unsigned long next_id;

/* "VERB ID" into s->req. */
static const char *req(peer_state *s, const char *verb) {
    snprintf(s->req, sizeof s->req, "%s %lu", verb, s->id);
    return s->req;
}

static int start(peer *p, gb_err *e) {
    char reply[4096];
    if (gb_peer_worker_start(&p->w, p->python, p->script, p->name, g.timeout_s, reply, sizeof reply, e) != GB_OK)
        return GB_SKIP;
    cJSON_Delete(p->hello);
    p->hello = cJSON_Parse(reply);
    if (!cJSON_IsObject(p->hello)) {
        gb_peer_worker_stop(&p->w);
        return gb_errf(e, GB_SKIP, "peer %s: its hello is not a JSON object", p->name);
    }
    return GB_OK;
}

static int init(peer *p, gb_backend *b, gb_err *e) {
    static const char install[] = "install numpy (Debian/Ubuntu: apt-get install python3-numpy) or name a python "
                                  "that has it with --python or GPUBENCH_PYTHON";
    if (g.python[0]) {
        int r = gb_python_probe(g.python, "numpy");
        if (r != 0)
            return gb_errf(e, GB_SKIP, "--python %s %s", g.python, r < 0 ? "cannot be run as Python 3" :
                           "cannot import numpy (the worker makes gpubench's inputs with it)");
        snprintf(p->python, sizeof p->python, "%s", g.python);
    } else if (gb_python_find("numpy", install, p->python, sizeof p->python, e) != GB_OK) {
        return GB_SKIP;
    }
    if (gb_data_file_find(NULL, "scripts", "cpu-peer-check.py", p->script, sizeof p->script, e) != GB_OK) return GB_SKIP;
    if (start(p, e) != GB_OK) return GB_SKIP;
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(p->hello, "device");
    b->role = cJSON_IsString(dev) && strcmp(dev->valuestring, "cpu") ? GB_ROLE_ACCELERATOR : GB_ROLE_HOST;
    p->up = 1;
    return GB_OK;
}

static void describe(peer *p, cJSON *ctx) {
    cJSON *peers = cJSON_GetObjectItemCaseSensitive(ctx, "peers");
    if (!peers) peers = cJSON_AddObjectToObject(ctx, "peers");
    if (!peers || !p->hello) return;
    cJSON *o = cJSON_Duplicate(p->hello, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(o, "pid");
    cJSON_AddItemToObject(peers, p->name, o);
}

static void add_str(cJSON *o, const char *k, const char *v) { cJSON_AddStringToObject(o, k, v); }

/* The case as the worker reads it (scripts/peer_worker.py). */
static char *case_json(const gb_case *c) {
    cJSON *o = cJSON_CreateObject();
    add_str(o, "op", c->op ? c->op->name : "");
    add_str(o, "dtype", gb_dtype_name(c->dtype));
    cJSON *sh = cJSON_AddArrayToObject(o, "shape");
    for (int i = 0; i < c->rank; i++) cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)c->shape[i]));
    cJSON_AddNumberToObject(o, "seed", (double)c->seed);
    cJSON *p = cJSON_AddObjectToObject(o, "params");
    cJSON_AddNumberToObject(p, "nrhs", c->params.nrhs);
    cJSON_AddNumberToObject(p, "density", c->params.density);
    add_str(p, "fft_kind", c->params.fft_kind == GB_FFT_C2C ? "c2c" : "r2c");
    if (c->params.svd_method >= 0 && c->params.svd_method < GB_SVD_METHOD_COUNT)
        add_str(p, "method", gb_svd_method_names[c->params.svd_method]);
    cJSON_AddNumberToObject(p, "batch", c->params.batch);
    add_str(p, "slice_kind", c->params.slice_kind == GB_SLICE_TRANSPOSE ? "transpose" : "stride2");
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

/* "skip why" / "fail why" / anything else: the status and e. */
static int answer(peer *p, const char *reply, const char *want, gb_err *e) {
    if (!strcmp(reply, want) || (want[0] == 't' && !strncmp(reply, "t ", 2))) return GB_OK;
    if (!strncmp(reply, "skip ", 5)) return gb_errf(e, GB_SKIP, "%s: %s", p->name, reply + 5);
    if (!strncmp(reply, "fail ", 5)) return gb_errf(e, GB_FAIL, "%s: %s", p->name, reply + 5);
    gb_peer_worker_stop(&p->w);
    return gb_errf(e, GB_SKIP, "%s: the worker answered \"%.60s\" (not the protocol); stopped", p->name, reply);
}

static int prepare(peer *p, const gb_case *c, void **state, gb_err *e) {
    if (p->w.pid <= 0 && start(p, e) != GB_OK) return GB_SKIP; /* it died on an earlier case: a new one */
    char *js = case_json(c);
    if (!js) return gb_errf(e, GB_FAIL, "out of memory");
    size_t n = strlen(js) + 32;
    char *line = malloc(n), reply[1024];
    unsigned long id = ++next_id;
    if (!line) {
        free(js);
        return gb_errf(e, GB_FAIL, "out of memory");
    }
    snprintf(line, n, "case %lu %s", id, js);
    free(js);
    int rc = gb_peer_worker_ask(&p->w, line, g.timeout_s, reply, sizeof reply, e);
    free(line);
    if (rc != GB_OK) return rc;
    if ((rc = answer(p, reply, "ok", e)) != GB_OK) return rc;
    peer_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_FAIL, "out of memory");
    s->p = p;
    s->c = c;
    s->id = id;
    *state = s;
    return GB_OK;
}

static int run(void *state, int timing, double *seconds, gb_err *e) {
    peer_state *s = state;
    char reply[256];
    int rc = gb_peer_worker_ask(&s->p->w, req(s, "run"), g.timeout_s, reply, sizeof reply, e);
    if (rc != GB_OK) return rc;
    if ((rc = answer(s->p, reply, "t", e)) != GB_OK) return rc;
    char *end;
    double t = strtod(reply + 2, &end);
    if (*end || !isfinite(t) || t < 0) {
        gb_peer_worker_stop(&s->p->w);
        return gb_errf(e, GB_SKIP, "%s: the worker's time \"%.40s\" is not a number of seconds; stopped", s->p->name,
                       reply + 2);
    }
    *seconds = t;
    return GB_OK;
}

static int parse_elem(const char *s, gb_elem *el) {
    static const struct { const char *n; gb_elem e; } t[] = {{"f32", GB_E_F32}, {"f64", GB_E_F64}, {"c64", GB_E_C64},
                                                             {"c128", GB_E_C128}, {"i32", GB_E_I32}, {"i64", GB_E_I64}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].n)) {
            *el = t[i].e;
            return 0;
        }
    return -1;
}

static int fetch(void *state, gb_arrays *out, gb_err *e) {
    peer_state *s = state;
    char reply[256];
    int rc = gb_peer_worker_ask(&s->p->w, req(s, "fetch"), g.timeout_s, reply, sizeof reply, e);
    for (int k = 0; rc == GB_OK && strcmp(reply, "end"); k++) {
        char name[24], elem[8];
        unsigned long long count;
        char tail;
        gb_elem el;
        if (!strncmp(reply, "fail ", 5)) return gb_errf(e, GB_FAIL, "%s: %s", s->p->name, reply + 5);
        if (k >= GB_MAX_ARRAYS || sscanf(reply, "out %23s %7s %llu%c", name, elem, &count, &tail) != 3 ||
            parse_elem(elem, &el) != 0 || count > (1ull << 40)) {
            gb_peer_worker_stop(&s->p->w);
            return gb_errf(e, GB_SKIP, "%s: the worker's output line \"%.60s\" is not the protocol; stopped",
                           s->p->name, reply);
        }
        gb_array *a = gb_arrays_add(out, name, el, (size_t)count, e);
        if (!a) return GB_FAIL;
        if ((rc = gb_peer_worker_read(&s->p->w, a->data, (size_t)count * gb_elem_size(el), g.timeout_s, e)) != GB_OK)
            return rc;
        rc = gb_peer_worker_line(&s->p->w, g.timeout_s, reply, sizeof reply, e);
    }
    return rc;
}

/* What a framework has is the worker's to say, at prepare (a skip with its reason). */
static int supports(const gb_case *c, gb_err *why) { return GB_OK; }

static void annotate(void *state, cJSON *extra) {
    peer_state *s = state;
    const cJSON *clock = cJSON_GetObjectItemCaseSensitive(s->p->hello, "clock");
    if (cJSON_IsString(clock)) cJSON_AddStringToObject(extra, "clock", clock->valuestring);
    cJSON_AddStringToObject(extra, "framework", s->p->name);
}

static void release(void *state) {
    peer_state *s = state;
    char reply[256];
    gb_err ignored = {{0}};
    if (s->p->w.pid > 0 && gb_peer_worker_ask(&s->p->w, req(s, "release"), g.timeout_s, reply, sizeof reply, &ignored) == GB_OK &&
        strcmp(reply, "ok"))
        gb_peer_worker_stop(&s->p->w);
    free(s);
}

static void shutdown_peer(peer *p) {
    gb_peer_worker_stop(&p->w);
    cJSON_Delete(p->hello);
    p->hello = NULL;
}

/* The contract's calls that carry no state, bound to peer i. */
#define PEER_FNS(i)                                                                                 \
    static int init_##i(const gb_backend_options *o, gb_err *e) { return init(&g.p[i], &backends[i], e); } \
    static void describe_##i(cJSON *ctx) { describe(&g.p[i], ctx); }                                \
    static int prepare_##i(const gb_case *c, const gb_arrays *in, void **st, gb_err *e) {           \
        return prepare(&g.p[i], c, st, e);                                                          \
    }                                                                                               \
    static void shutdown_##i(void) { shutdown_peer(&g.p[i]); }
PEER_FNS(0)
PEER_FNS(1)
PEER_FNS(2)
PEER_FNS(3)
PEER_FNS(4)
PEER_FNS(5)
typedef struct {
    int (*init)(const gb_backend_options *, gb_err *);
    void (*describe)(cJSON *);
    int (*prepare)(const gb_case *, const gb_arrays *, void **, gb_err *);
    void (*shutdown)(void);
} bound;
static const bound fns[PEER_MAX] = {{init_0, describe_0, prepare_0, shutdown_0}, {init_1, describe_1, prepare_1, shutdown_1},
                                    {init_2, describe_2, prepare_2, shutdown_2}, {init_3, describe_3, prepare_3, shutdown_3},
                                    {init_4, describe_4, prepare_4, shutdown_4}, {init_5, describe_5, prepare_5, shutdown_5}};

const gb_backend *gb_peer_backend(int i) {
    if (i < 0 || i >= g.n) return NULL;
    gb_backend *b = &backends[i];
    *b = (gb_backend){.abi_version = GB_ABI_VERSION, .name = g.p[i].name, .role = GB_ROLE_HOST, .ntimings = 1,
                      .timings = {"host"}, .timing_labels = {g.p[i].name}, .init = fns[i].init,
                      .describe = fns[i].describe, .supports = supports, .prepare = fns[i].prepare, .run = run, .fetch = fetch,
                      .annotate = annotate, .release = release, .shutdown = fns[i].shutdown};
    return b;
}
