/* sysinfo.h — provenance: what machine, system, build and command produced
 * a run. Stored as the results' "context" and printed by `gpubench info`. */
#ifndef GB_SYSINFO_H
#define GB_SYSINFO_H
#include <cjson/cJSON.h>

/* A new context object: date, hostname, os, kernel, cpu {model, sockets,
 * cores, logical_cpus, isa[], memory_bytes}, build {version, git_commit,
 * compiler, flags}, libraries {cjson}, command_line (argv joined). Backends
 * add their own parts through describe(). */
cJSON *gb_sysinfo_context(int argc, char **argv);
/* Hostname with characters unsafe in file names replaced. */
void gb_sysinfo_hostname(char *out, unsigned long len);
/* The build, as context.build records it: the commit ("unknown" outside a
 * git checkout or a `make dist` archive) and the compiler. */
const char *gb_sysinfo_build_commit(void);
const char *gb_sysinfo_build_compiler(void);
/* First line of a small text file (/proc, /sys), newline stripped; 1 if read. */
int gb_read_line(const char *path, char *buf, unsigned long len);
/* The CPU's model name (/proc/cpuinfo's first "model name"), "unknown"
 * when there is none. */
void gb_sysinfo_cpu_model(char *out, unsigned long len);
/* The steal time /proc/stat counts so far, all CPUs together, in
 * CPU-seconds (time the hypervisor gave this VM's CPUs to another guest);
 * -1 when unreadable. */
double gb_sysinfo_steal_s(void);
/* Logical CPUs online. */
int gb_sysinfo_logical_cpus(void);
#endif
