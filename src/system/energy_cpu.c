/* energy_cpu.c — see energy_cpu.h: RAPL through powercap sysfs, else the
 * perf power PMU. Wrap-around is core/energy.h's gb_energy_unwrap, per
 * domain (each wraps on its own). */
#include "energy_cpu.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "energy.h"
#include "gb.h"
#include "sysinfo.h"

#define GB_RAPL_MAX_DOMAINS 16

typedef struct {
    char path[1024];     /* powercap: the energy_uj file */
    int fd;             /* perf: the event's descriptor */
    double scale;       /* joules per raw unit */
    double range;       /* raw units at which it wraps (0: never) */
    double prev_raw, value;
    int have_prev;
} rapl_domain;

struct gb_cpu_energy {
    int perf;           /* 1: perf events, 0: powercap files */
    int n;
    rapl_domain d[GB_RAPL_MAX_DOMAINS];
    char names[200];    /* the domains summed */
    char domains[256];  /* and where from */
};

static int add_name(gb_cpu_energy *c, const char *name) {
    size_t len = strlen(c->names);
    snprintf(c->names + len, sizeof c->names - len, "%s%.40s", len ? " + " : "", name);
    return 0;
}

/* powercap: the top-level package-N zones, their dram subzones; psys only
 * when there is no package (it already contains the packages). */
static int open_powercap(const char *root, gb_cpu_energy *c, char *why, size_t len) {
    char dir[400];
    snprintf(dir, sizeof dir, "%s/sys/class/powercap", root);
    DIR *dp = opendir(dir);
    if (!dp) return GB_SKIP;
    char psys[1024] = "", psys_range[1024] = "";
    struct dirent *de;
    int found = 0;
    while ((de = readdir(dp)) != NULL) {
        /* intel-rapl:N (package or psys) and intel-rapl:N:M (core, uncore, dram) */
        if (strncmp(de->d_name, "intel-rapl:", 11) != 0) continue;
        found = 1;
        char p[1024], name[64];
        snprintf(p, sizeof p, "%s/%s/name", dir, de->d_name);
        if (!gb_read_line(p, name, sizeof name)) continue;
        int sub = strchr(de->d_name + 11, ':') != NULL;
        char energy[1024], range[1024];
        snprintf(energy, sizeof energy, "%s/%s/energy_uj", dir, de->d_name);
        snprintf(range, sizeof range, "%s/%s/max_energy_range_uj", dir, de->d_name);
        if (!sub && strcmp(name, "psys") == 0) {
            snprintf(psys, sizeof psys, "%s", energy);
            snprintf(psys_range, sizeof psys_range, "%s", range);
            continue;
        }
        if ((sub && strcmp(name, "dram") != 0) || (!sub && strncmp(name, "package", 7) != 0)) continue;
        if (c->n == GB_RAPL_MAX_DOMAINS) break;
        rapl_domain *d = &c->d[c->n++];
        snprintf(d->path, sizeof d->path, "%s", energy);
        char v[64];
        d->range = gb_read_line(range, v, sizeof v) ? strtod(v, NULL) : 0;
        d->scale = 1e-6;
        add_name(c, name);
    }
    closedir(dp);
    if (!found) return GB_SKIP;
    if (c->n == 0 && psys[0]) {
        rapl_domain *d = &c->d[c->n++];
        snprintf(d->path, sizeof d->path, "%s", psys);
        char v[64];
        d->range = gb_read_line(psys_range, v, sizeof v) ? strtod(v, NULL) : 0;
        d->scale = 1e-6;
        add_name(c, "psys");
    }
    if (c->n == 0) {
        snprintf(why, len, "%s has RAPL zones but no package, dram or psys domain", dir);
        return GB_FAIL;
    }
    /* energy_uj is root-only since Linux 5.10 (CVE-2020-8694): say so */
    FILE *f = fopen(c->d[0].path, "r");
    if (!f) {
        snprintf(why, len, "%s: %s%s", c->d[0].path, strerror(errno),
                 errno == EACCES || errno == EPERM ? " (permission denied: RAPL is readable by root only)" : "");
        return GB_FAIL;
    }
    fclose(f);
    snprintf(c->domains, sizeof c->domains, "powercap: %s", c->names);
    return GB_OK;
}

static long perf_open(struct perf_event_attr *a, int cpu) {
    return syscall(SYS_perf_event_open, a, -1, cpu, -1, 0);
}

/* perf: /sys/bus/event_source/devices/power/{type, cpumask, events/energy-*}. */
static int open_perf(const char *root, gb_cpu_energy *c, char *why, size_t len) {
    char dir[400], p[1024], v[128];
    snprintf(dir, sizeof dir, "%s/sys/bus/event_source/devices/power", root);
    snprintf(p, sizeof p, "%s/type", dir);
    if (!gb_read_line(p, v, sizeof v)) return GB_SKIP;
    int type = atoi(v);
    snprintf(p, sizeof p, "%s/cpumask", dir);
    int cpu = gb_read_line(p, v, sizeof v) ? atoi(v) : 0; /* one CPU of the first package */
    static const char *const events[] = {"energy-pkg", "energy-ram", "energy-psys"};
    c->perf = 1;
    for (int k = 0; k < 3; k++) {
        if (k == 2 && c->n > 0) break; /* psys contains the package: only without one */
        char ev[128] = "", scale[64] = "";
        snprintf(p, sizeof p, "%s/events/%s", dir, events[k]);
        if (!gb_read_line(p, ev, sizeof ev)) continue;
        snprintf(p, sizeof p, "%s/events/%s.scale", dir, events[k]);
        double sc = gb_read_line(p, scale, sizeof scale) ? strtod(scale, NULL) : 0;
        const char *eq = strstr(ev, "event=");
        if (!eq || !(sc > 0)) continue;
        struct perf_event_attr a;
        memset(&a, 0, sizeof a);
        a.size = sizeof a;
        a.type = (unsigned)type;
        a.config = strtoull(eq + 6, NULL, 0);
        long fd = perf_open(&a, cpu);
        if (fd < 0) {
            int err = errno;
            snprintf(why, len, "perf_event_open(power/%s, cpu %d): %s%s", events[k], cpu, strerror(err),
                     err == EACCES || err == EPERM ? " (permission denied: needs root or perf_event_paranoid <= 0)" : "");
            for (int i = 0; i < c->n; i++) close(c->d[i].fd);
            c->n = 0;
            return GB_FAIL;
        }
        rapl_domain *d = &c->d[c->n++];
        d->fd = (int)fd;
        d->scale = sc;
        d->range = 0; /* perf accumulates into 64 bits */
        add_name(c, events[k]);
    }
    if (c->n == 0) {
        snprintf(why, len, "the perf power PMU (%s) has no energy-pkg, energy-ram or energy-psys event", dir);
        return GB_FAIL;
    }
    snprintf(c->domains, sizeof c->domains, "perf power PMU: %s", c->names);
    return GB_OK;
}

int gb_cpu_energy_open(const char *root, gb_cpu_energy **out, char *why, size_t len) {
    *out = NULL;
    gb_cpu_energy *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, len, "out of memory");
        return GB_SKIP;
    }
    int st = open_powercap(root, c, why, len);
    if (st == GB_SKIP) {
        memset(c, 0, sizeof *c);
        st = open_perf(root, c, why, len);
    }
    if (st == GB_SKIP)
        snprintf(why, len, "no RAPL interface: neither %s/sys/class/powercap/intel-rapl:* nor the perf power PMU "
                           "(%s/sys/bus/event_source/devices/power)", root, root);
    if (st != GB_OK) {
        free(c);
        return GB_SKIP;
    }
    *out = c;
    return GB_OK;
}

int gb_cpu_energy_read(gb_cpu_energy *c, double *joules, char *why, size_t len) {
    double sum = 0;
    for (int i = 0; i < c->n; i++) {
        rapl_domain *d = &c->d[i];
        double raw;
        if (c->perf) {
            unsigned long long count = 0;
            if (read(d->fd, &count, sizeof count) != (ssize_t)sizeof count) {
                snprintf(why, len, "reading a perf power event: %s", strerror(errno));
                return GB_FAIL;
            }
            raw = (double)count;
        } else {
            char v[64];
            if (!gb_read_line(d->path, v, sizeof v)) {
                snprintf(why, len, "%s: cannot be read", d->path);
                return GB_FAIL;
            }
            raw = strtod(v, NULL);
        }
        d->value = d->have_prev ? gb_energy_unwrap(d->prev_raw, d->value, raw, d->range) : 0;
        d->prev_raw = raw;
        d->have_prev = 1;
        sum += d->value * d->scale;
    }
    *joules = sum;
    return GB_OK;
}

const char *gb_cpu_energy_domains(const gb_cpu_energy *c) { return c->domains; }

double gb_cpu_energy_resolution(const gb_cpu_energy *c) { return c->n ? c->d[0].scale : 0; }

void gb_cpu_energy_close(gb_cpu_energy *c) {
    if (!c) return;
    if (c->perf)
        for (int i = 0; i < c->n; i++) close(c->d[i].fd);
    free(c);
}
