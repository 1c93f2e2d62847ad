/* test_energy_cpu.c — the RAPL reader on a powercap tree written into a
 * scratch directory (the reader is told where "/" is): which domains it sums,
 * missing domains, wrap-around, and the reason it gives when there is no
 * interface (this machine, and the H100 host, have none). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "energy_cpu.h"
#include "testlib.h"

static void put(const char *root, const char *rel, const char *text) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* root/sys/class/powercap with a package (core and dram below it) and psys */
static const char *fake_powercap(const char *name, int with_dram) {
    const char *root = gb_test_tmp(name);
    char cmd[700];
    snprintf(cmd, sizeof cmd,
             "rm -rf %s && mkdir -p %s/sys/class/powercap/intel-rapl:0/intel-rapl:0:0 "
             "%s/sys/class/powercap/intel-rapl:0:0 %s/sys/class/powercap/intel-rapl:1",
             root, root, root, root);
    if (gb_test_sh(cmd, NULL, 0) != 0) return NULL;
    put(root, "sys/class/powercap/intel-rapl:0/name", "package-0\n");
    put(root, "sys/class/powercap/intel-rapl:0/energy_uj", "1000000\n");
    put(root, "sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
    put(root, "sys/class/powercap/intel-rapl:0:0/name", with_dram ? "dram\n" : "core\n");
    put(root, "sys/class/powercap/intel-rapl:0:0/energy_uj", "500000\n");
    put(root, "sys/class/powercap/intel-rapl:0:0/max_energy_range_uj", "65712999613\n");
    put(root, "sys/class/powercap/intel-rapl:1/name", "psys\n");
    put(root, "sys/class/powercap/intel-rapl:1/energy_uj", "7000000\n");
    put(root, "sys/class/powercap/intel-rapl:1/max_energy_range_uj", "262143328850\n");
    return root;
}

TEST(energy_cpu_sums_package_and_dram_not_psys) {
    const char *root = fake_powercap("rapl_pkg_dram", 1);
    CHECK(root != NULL);
    gb_cpu_energy *c = NULL;
    char why[300] = "";
    CHECK(gb_cpu_energy_open(root, &c, why, sizeof why) == GB_OK);
    if (!c) return;
    CHECK(strstr(gb_cpu_energy_domains(c), "package-0") != NULL);
    CHECK(strstr(gb_cpu_energy_domains(c), "dram") != NULL);
    CHECK(strstr(gb_cpu_energy_domains(c), "psys") == NULL);
    double j = -1;
    CHECK(gb_cpu_energy_read(c, &j, why, sizeof why) == GB_OK);
    CHECK_NEAR(j, 0, 0); /* counted from the first read */
    put(root, "sys/class/powercap/intel-rapl:0/energy_uj", "3000000\n");   /* +2 J */
    put(root, "sys/class/powercap/intel-rapl:0:0/energy_uj", "1500000\n"); /* +1 J */
    CHECK(gb_cpu_energy_read(c, &j, why, sizeof why) == GB_OK);
    CHECK_NEAR(j, 3.0, 1e-9);
    /* the package wraps: 262143328850 - 3000000 + 500000 uJ later */
    put(root, "sys/class/powercap/intel-rapl:0/energy_uj", "500000\n");
    CHECK(gb_cpu_energy_read(c, &j, why, sizeof why) == GB_OK);
    CHECK_NEAR(j, 3.0 + (262143328850.0 - 3000000.0 + 500000.0) * 1e-6, 1e-6);
    CHECK_NEAR(gb_cpu_energy_resolution(c), 1e-6, 0);
    gb_cpu_energy_close(c);
}

TEST(energy_cpu_without_dram_sums_the_package_alone) {
    const char *root = fake_powercap("rapl_pkg_only", 0);
    gb_cpu_energy *c = NULL;
    char why[300] = "";
    CHECK(gb_cpu_energy_open(root, &c, why, sizeof why) == GB_OK);
    if (!c) return;
    CHECK(strcmp(gb_cpu_energy_domains(c), "powercap: package-0") == 0);
    gb_cpu_energy_close(c);
}

TEST(energy_cpu_psys_only_when_there_is_no_package) {
    const char *root = fake_powercap("rapl_psys", 0);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s/sys/class/powercap/intel-rapl:0 %s/sys/class/powercap/intel-rapl:0:0", root, root);
    gb_test_sh(cmd, NULL, 0);
    gb_cpu_energy *c = NULL;
    char why[300] = "";
    CHECK(gb_cpu_energy_open(root, &c, why, sizeof why) == GB_OK);
    if (!c) return;
    CHECK(strcmp(gb_cpu_energy_domains(c), "powercap: psys") == 0);
    gb_cpu_energy_close(c);
}

TEST(energy_cpu_without_an_interface_says_why) {
    const char *root = gb_test_tmp("rapl_none");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s/sys/class", root, root);
    gb_test_sh(cmd, NULL, 0);
    gb_cpu_energy *c = NULL;
    char why[300] = "";
    CHECK(gb_cpu_energy_open(root, &c, why, sizeof why) == GB_SKIP);
    CHECK(c == NULL);
    CHECK(strstr(why, "no RAPL interface") != NULL);
}

TEST(energy_cpu_perf_pmu_that_cannot_be_opened_says_why) {
    /* a power PMU whose type no kernel has: perf_event_open refuses it, and
     * the reason names the call and the event, not a zero */
    const char *root = gb_test_tmp("rapl_perf");
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s/sys/bus/event_source/devices/power/events", root, root);
    gb_test_sh(cmd, NULL, 0);
    put(root, "sys/bus/event_source/devices/power/type", "987654\n");
    put(root, "sys/bus/event_source/devices/power/cpumask", "0\n");
    put(root, "sys/bus/event_source/devices/power/events/energy-psys", "event=0x05\n");
    put(root, "sys/bus/event_source/devices/power/events/energy-psys.scale", "2.3283064365386962890625e-10\n");
    gb_cpu_energy *c = NULL;
    char why[300] = "";
    CHECK(gb_cpu_energy_open(root, &c, why, sizeof why) == GB_SKIP);
    CHECK(strstr(why, "perf_event_open(power/energy-psys") != NULL);
}
