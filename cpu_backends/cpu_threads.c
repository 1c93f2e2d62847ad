/* cpu_threads.c — the CPU backend's thread count (cpu_backend.h). */
#include "cpu_backend.h"

static int cpu_threads = 1;

int gb_cpu_threads(void) { return cpu_threads; }
void gb_cpu_set_threads(int n) { cpu_threads = n; }
