/* energy_cpu.h — the CPU's energy counters (RAPL), read only: the powercap
 * sysfs files (intel-rapl:N energy_uj, wrapping at max_energy_range_uj) or,
 * where powercap is absent, the perf `power` PMU's energy-pkg / energy-ram /
 * energy-psys events. What a reader covers is the CPU packages plus DRAM
 * when the machine exposes a dram domain (psys, the whole platform, only
 * when there is no package domain); docs/energy.md says more.
 *
 * Opening never guesses: when no counter can be read the reason is given
 * ("no RAPL interface: neither /sys/class/powercap/intel-rapl:* nor the perf
 * power PMU", "permission denied: ..."), and a counter that is readable but
 * does not advance is refused later by the probe (core/energy.h). */
#ifndef GB_ENERGY_CPU_H
#define GB_ENERGY_CPU_H
#include <stddef.h>

typedef struct gb_cpu_energy gb_cpu_energy;

/* Open the counters under root (a directory standing for "/": "" for the
 * machine's own, a scratch tree in tests). GB_OK with *out, or GB_SKIP with
 * the reason in why. */
int gb_cpu_energy_open(const char *root, gb_cpu_energy **out, char *why, size_t len);
/* The unwrapped sum of the domains' counters, in joules. GB_OK, or GB_FAIL
 * with the reason in why. */
int gb_cpu_energy_read(gb_cpu_energy *c, double *joules, char *why, size_t len);
/* Which domains are summed and from where: "powercap: package-0 + dram". */
const char *gb_cpu_energy_domains(const gb_cpu_energy *c);
/* The counters' unit in joules (powercap: 1 uJ; perf: its scale). */
double gb_cpu_energy_resolution(const gb_cpu_energy *c);
void gb_cpu_energy_close(gb_cpu_energy *c);
#endif
