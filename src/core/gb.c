/* gb.c — error messages and host arrays (also compiled into the CUDA plugin). */
#include "gb.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int gb_errf(gb_err *e, int status, const char *fmt, ...) {
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

void *gb_alloc(size_t bytes) {
    void *p = NULL;
    size_t rounded = (bytes + 63) / 64 * 64;
    if (rounded == 0) rounded = 64;
    if (posix_memalign(&p, 64, rounded) != 0) return NULL;
    return p;
}

void gb_free(void *p) { free(p); }

size_t gb_elem_size(gb_elem e) {
    switch (e) {
    case GB_E_F32: return 4;
    case GB_E_F64: return 8;
    case GB_E_C64: return 8;
    case GB_E_C128: return 16;
    case GB_E_I32: return 4;
    case GB_E_I64: return 8;
    case GB_E_BF16: case GB_E_F16: return 2;
    case GB_E_F8E4M3: case GB_E_I8: return 1;
    }
    return 0;
}

gb_array *gb_arrays_adopt(gb_arrays *a, const char *name, gb_elem elem, size_t count,
                          void *data, gb_err *e) {
    if (a->count >= GB_MAX_ARRAYS) {
        gb_errf(e, GB_FAIL, "too many arrays (more than %d) adding '%s'", GB_MAX_ARRAYS, name);
        return NULL;
    }
    gb_array *x = &a->item[a->count++];
    snprintf(x->name, sizeof x->name, "%s", name);
    x->elem = elem;
    x->count = count;
    x->data = data;
    return x;
}

gb_array *gb_arrays_add(gb_arrays *a, const char *name, gb_elem elem, size_t count, gb_err *e) {
    size_t bytes = count * gb_elem_size(elem);
    void *data = gb_alloc(bytes);
    if (!data) {
        gb_errf(e, GB_SKIP, "out of host memory allocating %s (%.3g GiB)", name,
                (double)bytes / (1024.0 * 1024 * 1024));
        return NULL;
    }
    gb_array *x = gb_arrays_adopt(a, name, elem, count, data, e);
    if (!x) gb_free(data);
    return x;
}

gb_array *gb_arrays_add_copy(gb_arrays *a, const char *name, gb_elem elem, size_t count,
                             const void *data, gb_err *e) {
    gb_array *x = gb_arrays_add(a, name, elem, count, e);
    if (x && count) gb_copy(x->data, data, count * gb_elem_size(elem));
    return x;
}

/* Below this a copy is not worth waking the threads. */
#define GB_COPY_PARALLEL_BYTES ((size_t)16 << 20)
#define GB_COPY_CHUNK ((size_t)1 << 20)

/* memcpy from src, or memset to byte when src is NULL, in GB_COPY_CHUNK
 * pieces over the threads when large. */
static void copy_or_fill(void *dst, const void *src, int byte, size_t bytes) {
    size_t chunks = bytes < GB_COPY_PARALLEL_BYTES ? 1 : (bytes + GB_COPY_CHUNK - 1) / GB_COPY_CHUNK;
    size_t piece = chunks == 1 ? bytes : GB_COPY_CHUNK;
#pragma omp parallel for schedule(static) if (chunks > 1)
    for (size_t c = 0; c < chunks; c++) {
        size_t off = c * piece, len = bytes - off < piece ? bytes - off : piece;
        if (src)
            memcpy((char *)dst + off, (const char *)src + off, len);
        else
            memset((char *)dst + off, byte, len);
    }
}

void gb_copy(void *dst, const void *src, size_t bytes) { copy_or_fill(dst, src, 0, bytes); }

void gb_fill(void *dst, int byte, size_t bytes) { copy_or_fill(dst, NULL, byte, bytes); }

gb_array *gb_arrays_find(const gb_arrays *a, const char *name) {
    for (int i = 0; i < a->count; i++)
        if (strcmp(a->item[i].name, name) == 0) return (gb_array *)&a->item[i];
    return NULL;
}

void gb_arrays_free(gb_arrays *a) {
    for (int i = 0; i < a->count; i++) gb_free(a->item[i].data);
    memset(a, 0, sizeof *a);
}

void gb_array_poison(gb_array *a) {
    size_t n = a->count;
    switch (a->elem) {
    /* threaded when large, as gb_copy (an 8192² output is 512 MiB) */
    case GB_E_F32: case GB_E_C64: {
        float *f = a->data;
        size_t m = a->elem == GB_E_C64 ? 2 * n : n;
#pragma omp parallel for schedule(static) if (m * sizeof *f >= GB_COPY_PARALLEL_BYTES)
        for (size_t i = 0; i < m; i++) f[i] = NAN;
        break;
    }
    case GB_E_F64: case GB_E_C128: {
        double *d = a->data;
        size_t m = a->elem == GB_E_C128 ? 2 * n : n;
#pragma omp parallel for schedule(static) if (m * sizeof *d >= GB_COPY_PARALLEL_BYTES)
        for (size_t i = 0; i < m; i++) d[i] = NAN;
        break;
    }
    case GB_E_I32: memset(a->data, 0xff, n * 4); break;
    case GB_E_I64: memset(a->data, 0xff, n * 8); break;
    /* NaN bit patterns (precision.h): 0x7FC0 is bfloat16's quiet NaN,
     * 0x7E00 binary16's, 0x7F E4M3's */
    case GB_E_BF16: case GB_E_F16: {
        uint16_t *h = a->data, nan = a->elem == GB_E_BF16 ? 0x7FC0u : 0x7E00u;
        for (size_t i = 0; i < n; i++) h[i] = nan;
        break;
    }
    case GB_E_F8E4M3: memset(a->data, 0x7f, n); break;
    case GB_E_I8: memset(a->data, 0xff, n); break;
    }
}

int gb_list_contains(const char *list, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) return 1;
        if (!end) break;
        p = end + 1;
    }
    return 0;
}

int gb_name_matches(const char *pattern, const char *name) {
    if (!pattern || !*pattern) return 1;
    if (strpbrk(pattern, "*?[")) return fnmatch(pattern, name, 0) == 0;
    return strstr(name, pattern) != NULL;
}

const char *const gb_svd_method_names[GB_SVD_METHOD_COUNT + 1] = {
    "auto", "gesdd", "gesvd", "gesvdj", "gesvdp", "xgesvd", "xgesvdp", "gesvdp64", "xgesvdr", NULL};

int gb_multigpu_check(int gpus, int min, int ndevices, const char *routine, gb_err *why) {
    if (gpus < min) return gb_errf(why, GB_SKIP, "%s needs at least %d GPUs (gpus = %d)", routine, min, gpus);
    if (gpus > ndevices)
        return gb_errf(why, GB_SKIP, "gpus = %d but this run has %d device%s (list them with --devices, or --devices all)",
                       gpus, ndevices, ndevices == 1 ? "" : "s");
    return GB_OK;
}

void gb_safe_file_name(const char *name, char *out, size_t len) {
    size_t k = 0;
    if (len == 0) return;
    for (const char *p = name; *p && k + 1 < len; p++) {
        char ch = *p;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                 ch == '_' || (ch == '.' && k > 0);
        out[k++] = ok ? ch : '_';
    }
    if (k == 0 && len > 1) out[k++] = '_';
    out[k] = '\0';
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

int gb_scan_decimal(const char *s, double *v, const char **end) {
    const char *p = s;
    if (!s || !is_digit(*p)) return -1;
    while (is_digit(*p)) p++;
    if (*p == '.') {
        if (!is_digit(p[1])) return -1;
        for (p++; is_digit(*p);) p++;
    }
    if ((*p == 'e' || *p == 'E') && (is_digit(p[1]) || ((p[1] == '+' || p[1] == '-') && is_digit(p[2])))) {
        p += 2;
        while (is_digit(*p)) p++;
    }
    /* the checked span holds only what strtod reads as decimal */
    char *e2;
    errno = 0;
    double x = strtod(s, &e2);
    if (e2 != p || errno == ERANGE || !isfinite(x)) return -1;
    *v = x;
    *end = p;
    return 0;
}

int gb_parse_count(const char *s, long long lo, long long hi, long long *out) {
    if (!s || !*s) return -1;
    for (const char *p = s; *p; p++)
        if (!is_digit(*p)) return -1;
    char *e2;
    errno = 0;
    long long v = strtoll(s, &e2, 10);
    if (errno || *e2 || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int gb_parse_real(const char *s, double lo, double hi, double *out) {
    double v;
    const char *end;
    if (!s || gb_scan_decimal(s, &v, &end) != 0 || *end || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

/* n digits at *p, their value in [lo, hi]; *p moves past them. */
static int digits(const char **p, int n, int lo, int hi) {
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (!is_digit(**p)) return -1;
        v = v * 10 + (**p - '0');
    }
    return v >= lo && v <= hi ? v : -1;
}

int gb_parse_iso_time(const char *s) {
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const char *p = s;
    if (!s) return -1;
    int y = digits(&p, 4, 1970, 9999);
    if (y < 0 || *p++ != '-') return -1;
    int m = digits(&p, 2, 1, 12);
    if (m < 0 || *p++ != '-') return -1;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    int d = digits(&p, 2, 1, m == 2 && !leap ? 28 : mdays[m - 1]);
    if (d < 0) return -1;
    if (!*p) return 0;
    if (*p++ != 'T' || digits(&p, 2, 0, 23) < 0 || *p++ != ':' || digits(&p, 2, 0, 59) < 0) return -1;
    if (*p == ':' && (p++, digits(&p, 2, 0, 60) < 0)) return -1;
    if (*p == 'Z') return p[1] ? -1 : 0;
    if (*p == '+' || *p == '-') {
        p++;
        if (digits(&p, 2, 0, 23) < 0 || *p++ != ':' || digits(&p, 2, 0, 59) < 0) return -1;
    }
    return *p ? -1 : 0;
}

int gb_is_driver_version(const char *s) {
    int groups = 0;
    for (const char *p = s; p && *p;) {
        if (!is_digit(*p)) return 0;
        while (is_digit(*p)) p++;
        groups++;
        if (*p == '.') {
            if (!is_digit(p[1])) return 0;
            p++;
        } else if (*p) {
            return 0;
        }
    }
    return groups >= 2;
}

int gb_nvidia_driver_from_proc(const char *text, char *buf, size_t len) {
    const char *line = text ? strstr(text, "NVRM version:") : NULL;
    if (!line) return 0;
    size_t line_len = strcspn(line, "\n");
    for (const char *p = line; p < line + line_len;) {
        p += strspn(p, " \t");
        size_t n = strcspn(p, " \t\n");
        if (!n) break;
        char word[64];
        if (n < sizeof word && n < len) {
            memcpy(word, p, n);
            word[n] = '\0';
            if (gb_is_driver_version(word)) {
                snprintf(buf, len, "%s", word);
                return 1;
            }
        }
        p += n;
    }
    return 0;
}

int gb_arrays_find_csr(const gb_arrays *a, const char *prefix, const gb_array **rowptr, const gb_array **colind,
                       const gb_array **val) {
    char name[64];
    snprintf(name, sizeof name, "%s_rowptr", prefix);
    *rowptr = gb_arrays_find(a, name);
    snprintf(name, sizeof name, "%s_colind", prefix);
    *colind = gb_arrays_find(a, name);
    snprintf(name, sizeof name, "%s_val", prefix);
    *val = gb_arrays_find(a, name);
    return *rowptr && *colind && *val;
}

const char *gb_cache_dir(char *buf, size_t len) {
    const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (cache && *cache) snprintf(buf, len, "%s/gpubench", cache);
    else if (home && *home) snprintf(buf, len, "%s/.cache/gpubench", home);
    else return NULL;
    char parent[2048];
    snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(buf, '/') - buf), buf);
    mkdir(parent, 0755);
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return NULL;
    return buf;
}
