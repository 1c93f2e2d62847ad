/* test_layers.c — the rooms only point down (src/LAYERS).
 *
 * src/LAYERS lists the rooms top to bottom. Every source file belongs to one
 * module (its folder and its name without the extension: runner.c and
 * runner.h are one module). A module depends on another when one of its
 * files includes a header of the other, or when its object uses a symbol the
 * other's object defines (`nm -P -g`, on the objects this test binary was
 * built from: build/, and build/plugin/ for the CUDA plugin when it was
 * built). Two rules, as import-linter's layers contract has them:
 *
 *   - no module depends on one in a room above its own (an include or a
 *     call that climbs);
 *   - no two modules depend on each other, directly or round a longer
 *     circle (one of them could not be understood, tested or moved alone).
 *
 * Each failure is printed with the include or the symbol that makes it. */
#include "testlib.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LY_MAX_ROOMS 16
#define LY_MAX_DIRS 32
#define LY_MAX_MODS 512
#define LY_MAX_FILES 1024
#define LY_SYM_SLOTS 65536 /* a power of two, well above the symbols defined */

typedef struct {
    char dir[64];  /* "src/run" */
    int rank;      /* 0: the top room */
    char room[32];
} ly_dir;

typedef struct {
    char name[128]; /* "src/run/runner" */
    int dir;        /* index into dirs */
    int has_c, has_cu;
} ly_module;

typedef struct {
    char file[256]; /* the file's own name, as an include names it */
    int mod;
} ly_file;

typedef struct {
    int a, b;       /* a depends on b */
    char why[400];
} ly_edge;

typedef struct {
    ly_dir dirs[LY_MAX_DIRS];
    int ndirs;
    ly_module mods[LY_MAX_MODS];
    int nmods;
    ly_file files[LY_MAX_FILES];
    int nfiles;
    unsigned char dep[LY_MAX_MODS][LY_MAX_MODS];
    ly_edge *edges;
    int nedges, cap_edges;
    char *sym_name[LY_SYM_SLOTS];
    int sym_mod[LY_SYM_SLOTS];
    int upward_includes, upward_calls, objects_read;
} ly_graph;

/* ---- src/LAYERS --------------------------------------------------------- */

static int read_layers(ly_graph *g, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    int rank = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        if (*p == '#' || *p == '\n' || *p == 0) continue;
        char *save = NULL, *room = strtok_r(p, " \t\n", &save);
        for (char *d = strtok_r(NULL, " \t\n", &save); d && g->ndirs < LY_MAX_DIRS; d = strtok_r(NULL, " \t\n", &save)) {
            ly_dir *o = &g->dirs[g->ndirs++];
            snprintf(o->dir, sizeof o->dir, "%s", d);
            snprintf(o->room, sizeof o->room, "%s", room);
            o->rank = rank;
        }
        rank++;
    }
    fclose(f);
    return rank;
}

/* ---- modules and their files ---------------------------------------------- */

static int is_source(const char *name) {
    const char *dot = strrchr(name, '.');
    if (!dot) return 0;
    return !strcmp(dot, ".c") || !strcmp(dot, ".h") || !strcmp(dot, ".cu") || !strcmp(dot, ".cuh") ||
           !strcmp(dot, ".def");
}

static int module_of(ly_graph *g, int dir, const char *file) {
    char name[128];
    const char *dot = strrchr(file, '.');
    snprintf(name, sizeof name, "%s/%.*s", g->dirs[dir].dir, (int)(dot - file), file);
    for (int i = 0; i < g->nmods; i++)
        if (!strcmp(g->mods[i].name, name)) return i;
    if (g->nmods == LY_MAX_MODS) return -1;
    ly_module *m = &g->mods[g->nmods];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->dir = dir;
    return g->nmods++;
}

static void scan_dirs(ly_graph *g) {
    for (int d = 0; d < g->ndirs; d++) {
        DIR *dh = opendir(g->dirs[d].dir);
        struct dirent *de;
        while (dh && (de = readdir(dh))) {
            if (!is_source(de->d_name) || g->nfiles == LY_MAX_FILES) continue;
            int m = module_of(g, d, de->d_name);
            if (m < 0) continue;
            const char *dot = strrchr(de->d_name, '.');
            if (!strcmp(dot, ".c")) g->mods[m].has_c = 1;
            if (!strcmp(dot, ".cu")) g->mods[m].has_cu = 1;
            ly_file *f = &g->files[g->nfiles++];
            snprintf(f->file, sizeof f->file, "%s", de->d_name);
            f->mod = m;
        }
        if (dh) closedir(dh);
    }
}

static int rank_of(const ly_graph *g, int m) { return g->dirs[g->mods[m].dir].rank; }
static const char *room_of(const ly_graph *g, int m) { return g->dirs[g->mods[m].dir].room; }

static void add_edge(ly_graph *g, int a, int b, const char *why) {
    if (a == b || g->dep[a][b]) return;
    g->dep[a][b] = 1;
    if (g->nedges == g->cap_edges) {
        int cap = g->cap_edges ? 2 * g->cap_edges : 256;
        ly_edge *more = realloc(g->edges, (size_t)cap * sizeof *more);
        if (!more) return;
        g->edges = more;
        g->cap_edges = cap;
    }
    ly_edge *e = &g->edges[g->nedges++];
    e->a = a;
    e->b = b;
    snprintf(e->why, sizeof e->why, "%s", why);
}

static const char *edge_why(const ly_graph *g, int a, int b) {
    for (int i = 0; i < g->nedges; i++)
        if (g->edges[i].a == a && g->edges[i].b == b) return g->edges[i].why;
    return "?";
}

/* ---- includes ----------------------------------------------------------- */

static int file_index(const ly_graph *g, const char *name) {
    for (int i = 0; i < g->nfiles; i++)
        if (!strcmp(g->files[i].file, name)) return i;
    return -1;
}

static void scan_includes(ly_graph *g) {
    for (int i = 0; i < g->nfiles; i++) {
        const ly_file *f = &g->files[i];
        char path[400], line[512];
        snprintf(path, sizeof path, "%s/%s", g->dirs[g->mods[f->mod].dir].dir, f->file);
        FILE *fh = fopen(path, "r");
        while (fh && fgets(line, sizeof line, fh)) {
            char *p = line + strspn(line, " \t");
            if (strncmp(p, "#include", 8) != 0) continue;
            p = strchr(p, '"');
            char *end = p ? strchr(p + 1, '"') : NULL;
            if (!end) continue; /* <system> headers */
            *end = 0;
            int t = file_index(g, p + 1);
            if (t < 0 || g->files[t].mod == f->mod) continue;
            int to = g->files[t].mod;
            char why[1000];
            snprintf(why, sizeof why, "%s includes \"%s\"", path, p + 1);
            if (rank_of(g, to) < rank_of(g, f->mod)) {
                fprintf(stderr, "  upward include: %s (%s, above %s)\n", why, room_of(g, to), room_of(g, f->mod));
                g->upward_includes++;
            }
            /* A header of a module with an object declares what that object
             * defines: the symbols say what is used of it (cpu_backend.h
             * declares every op's entry point, and each op file includes it;
             * counted as a dependency, each would be in a circle with the
             * table that calls it). A header-only module (types, macros,
             * inline functions) is depended on by its include. */
            if (!g->mods[to].has_c && !g->mods[to].has_cu) add_edge(g, f->mod, to, why);
        }
        if (fh) fclose(fh);
    }
}

/* ---- symbols (nm) ------------------------------------------------------- */

static unsigned long hash(const char *s) {
    unsigned long h = 5381;
    while (*s) h = h * 33 + (unsigned char)*s++;
    return h;
}

static int *sym_slot(ly_graph *g, const char *name, int insert) {
    for (unsigned long h = hash(name) & (LY_SYM_SLOTS - 1);; h = (h + 1) & (LY_SYM_SLOTS - 1)) {
        if (!g->sym_name[h]) {
            if (!insert || !(g->sym_name[h] = strdup(name))) return NULL;
            g->sym_mod[h] = -1;
            return &g->sym_mod[h];
        }
        if (!strcmp(g->sym_name[h], name)) return &g->sym_mod[h];
    }
}

/* The object a module's .c or .cu compiles to: the plugin's for
 * gpu_backends, else the program's. */
static int object_path(const ly_graph *g, const char *build, int m, char *out, size_t len) {
    if (strlen(build) > 256) return 0;
    const ly_module *mod = &g->mods[m];
    if (!mod->has_c && !mod->has_cu) return 0;
    int plugin = strstr(mod->name, "gpu_backends/") == mod->name;
    snprintf(out, len, "%s/%s%s.o", build, plugin ? "plugin/" : "", mod->name);
    return access(out, R_OK) == 0;
}

/* Run nm on module m's object: defined (pass 0) or used (pass 1) symbols. */
static void scan_object(ly_graph *g, const char *build, int m, int pass) {
    char obj[1024], cmd[1100], line[1024];
    if (!object_path(g, build, m, obj, sizeof obj)) return;
    snprintf(cmd, sizeof cmd, "nm -P -g '%s' 2>/dev/null", obj);
    FILE *p = popen(cmd, "r");
    if (!p) return;
    if (pass == 0) g->objects_read++;
    while (fgets(line, sizeof line, p)) {
        char name[256], type[8];
        if (sscanf(line, "%255s %7s", name, type) != 2) continue;
        int undefined = !strcmp(type, "U") || !strcmp(type, "w");
        if (pass == 0 && !undefined) {
            int *slot = sym_slot(g, name, 1);
            if (slot && *slot < 0) *slot = m;
        } else if (pass == 1 && undefined) {
            int *slot = sym_slot(g, name, 0);
            if (!slot || *slot < 0 || *slot == m) continue;
            char why[800];
            snprintf(why, sizeof why, "%s.o uses %s", g->mods[m].name, name);
            if (rank_of(g, *slot) < rank_of(g, m) && !g->dep[m][*slot]) {
                fprintf(stderr, "  upward call: %s (%s, above %s)\n", why, room_of(g, *slot), room_of(g, m));
                g->upward_calls++;
            }
            add_edge(g, m, *slot, why);
        }
    }
    pclose(p);
}

/* The build folder this test binary lives in (build/tests/run_tests). */
static void build_dir(char *out, size_t len) {
    char exe[512];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(out, len, "build");
    if (n <= 0) return;
    exe[n] = 0;
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash) return;
        *slash = 0;
    }
    snprintf(out, len, "%s", exe);
}

/* ---- circles ------------------------------------------------------------ */

/* Pairs of modules that reach each other (a circle through both); *direct:
 * those that depend on each other in one step. */
static int mutual_pairs(ly_graph *g, int *direct) {
    int n = g->nmods, count = 0;
    static unsigned char reach[LY_MAX_MODS][LY_MAX_MODS];
    memcpy(reach, g->dep, sizeof reach);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            if (reach[i][k])
                for (int j = 0; j < n; j++) reach[i][j] |= reach[k][j];
    *direct = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (!reach[i][j] || !reach[j][i]) continue;
            count++;
            if (g->dep[i][j] && g->dep[j][i]) {
                (*direct)++;
                fprintf(stderr, "  mutual: %s and %s (%s; %s)\n", g->mods[i].name, g->mods[j].name, edge_why(g, i, j),
                        edge_why(g, j, i));
            } else {
                fprintf(stderr, "  circle: %s and %s reach each other\n", g->mods[i].name, g->mods[j].name);
            }
        }
    return count;
}

static void free_graph(ly_graph *g) {
    for (int i = 0; i < LY_SYM_SLOTS; i++) free(g->sym_name[i]);
    free(g->edges);
    free(g);
}

TEST(layers_only_point_down) {
    ly_graph *g = calloc(1, sizeof *g);
    if (!CHECK(g)) return;
    int rooms = read_layers(g, "src/LAYERS");
    if (!CHECK(rooms > 1)) {
        free_graph(g);
        return;
    }
    scan_dirs(g);
    scan_includes(g);
    char build[512];
    build_dir(build, sizeof build);
    for (int pass = 0; pass < 2; pass++)
        for (int m = 0; m < g->nmods; m++) scan_object(g, build, m, pass);
    int direct = 0, mutual = mutual_pairs(g, &direct);
    fprintf(stderr,
            "  layers: %d rooms, %d modules, %d objects read (%s); %d upward includes, %d upward calls, "
            "%d pairs in a circle (%d depend on each other directly)\n",
            rooms, g->nmods, g->objects_read, build, g->upward_includes, g->upward_calls, mutual, direct);
    CHECK(g->nmods > 50);
    CHECK(g->objects_read > 50); /* the symbol half ran */
    CHECK(g->upward_includes == 0);
    CHECK(g->upward_calls == 0);
    CHECK(mutual == 0);
    free_graph(g);
}
