/* energy.h — the arithmetic of energy counters, shared by every reader (the
 * CPU's RAPL in system/energy_cpu.c, the GPU's NVML counter in the CUDA
 * plugin, read by the runner's monitor in run/run_energy.c). It knows no
 * device and no clock: it works on recorded traces of (time, counter) reads,
 * so tests feed it traces recorded on real machines or written by hand
 * (tests/core/test_energy.c) and nothing here depends on timing.
 *
 * The counters (docs/energy.md):
 *   - a counter is cumulative energy in joules, read at host times t; it may
 *     wrap (RAPL's energy_uj wraps at max_energy_range_uj), and it advances
 *     in steps: NVML's total-energy counter every ~100 ms (steps of 7-13 J
 *     idle and ~64 J under SGEMM load on the H100 host), RAPL about every ms;
 *   - a read between two updates returns the last update, so a read lags
 *     the truth by up to one period: two reads at the ends of a span of D
 *     seconds are uncertain by 2 periods, i.e. a relative error up to
 *     2·period/D (10 s for 2% at 100 ms);
 *   - reads synchronised to the updates (polled often, a "tick" is the first
 *     read that sees the counter change) place each update within one polling
 *     interval, so the energy between two ticks is exact to the counter's
 *     resolution and its duration is uncertain by two polling intervals:
 *     2·poll/D (0.5 s for 2% at 5 ms polling). */
#ifndef GB_ENERGY_H
#define GB_ENERGY_H
#include <stddef.h>

/* One read of a counter: host monotonic seconds and joules (unwrapped). */
typedef struct {
    double t, j;
} gb_energy_read;

/* The error bound every energy result aims at (relative, on the power). */
#define GB_ENERGY_TARGET 0.02

/* The next unwrapped value of a counter that wraps at range (same unit as
 * raw; range <= 0: it does not wrap): prev_raw and prev_value are the last
 * raw read and its unwrapped value. A raw value below the last one is one
 * wrap: RAPL's package range is typically 262 kJ, 20 minutes at 200 W, and
 * the readers read it at least at the ends of every timed phase. */
double gb_energy_unwrap(double prev_raw, double prev_value, double raw, double range);

/* What a trace read at rest says about a counter (measured at the start of a
 * run, never taken from constants). */
typedef struct {
    int advancing;      /* it changed at least twice during the trace */
    size_t changes;     /* how many reads saw a new value */
    double period_s;    /* median time between changes (NAN: fewer than 2 changes) */
    double step_j;      /* median increment per change */
    double power_w;     /* energy between the first and last change over their time: the idle power */
    double poll_s;      /* median time between reads */
} gb_energy_probe;

/* Probe a trace of n reads (in time order). GB_OK, or GB_FAIL with the reason
 * in why ("counter does not advance: 40 reads over 0.50 s, no change";
 * "counter went backwards at read 3") when it cannot be used. */
int gb_energy_probe_trace(const gb_energy_read *r, size_t n, gb_energy_probe *out, char *why, size_t len);

/* The energy of one span (a timed phase, or an energy phase), from the reads
 * taken during it: r[0] at its start, r[n-1] at its end, any reads between.
 *   synced (some change was bracketed by reads closer together than half a
 *   period, and two changes were seen): the energy between the first and the
 *   last tick, over their times; uncertainty_s the two ticks' read gaps;
 *   otherwise: r[n-1] - r[0] over the span, uncertainty_s two periods.
 * span_s is the whole span (r[n-1].t - r[0].t). */
typedef struct {
    double energy_j, seconds, uncertainty_s, span_s;
    int synced;
} gb_energy_window;
int gb_energy_window_of(const gb_energy_read *r, size_t n, double period_s, gb_energy_window *w);

/* Windows of one result add up (its rounds, its energy phase), the synced
 * ones apart from the others: an estimate uses the synced windows alone when
 * there are any (a window read only at its ends, uncertain by two periods,
 * would only widen their bound), else the others. */
typedef struct {
    double energy_j, seconds, uncertainty_s; /* over the windows */
    double span_s;                           /* the spans' total wall time */
    double reps;                             /* repetitions run in the spans */
    int windows;
} gb_energy_part;
typedef struct {
    gb_energy_part synced, ends;
} gb_energy_sum;
void gb_energy_add(gb_energy_sum *s, const gb_energy_window *w, double reps);
/* The part an estimate uses (see above). */
const gb_energy_part *gb_energy_used(const gb_energy_sum *s);

/* The estimate of a sum: mean power over the windows, joules per repetition
 * (that power over the spans' time per repetition: repetitions as they were
 * issued, gaps between them included), and the relative error bound:
 * uncertainty / seconds + windows · resolution / energy. The above-idle
 * figures subtract idle_w (NAN: unknown, they are NAN) from the power; their
 * bound is the total's scaled by power / (power - idle). GB_OK, or GB_FAIL
 * when the sum holds no energy (why says so). */
typedef struct {
    double power_w, j_per_op, bound;
    double above_idle_w, above_idle_j_per_op, above_idle_bound;
} gb_energy_estimate;
int gb_energy_estimate_of(const gb_energy_sum *s, double resolution_j, double idle_w, gb_energy_estimate *out,
                          char *why, size_t len);

/* How long a span must last to reach `target` (relative) with reads polled
 * every poll_s (synced) on a counter of this probe at power_w (the load's
 * power, or the probe's idle power as a lower bound): the ticks at each end
 * cost up to a period each, the rest must satisfy
 * 2·poll/W + resolution/(power·W) <= target. Without synchronised reads
 * (poll_s >= period/2) each end costs a period instead of a poll. */
double gb_energy_needed_s(const gb_energy_probe *p, double poll_s, double resolution_j, double power_w, double target);

/* ---- clock events -----------------------------------------------------------
 * Why a device ran below its clocks, as backend-neutral bits (the CUDA plugin
 * maps NVML's nvmlClocksEventReason* onto them). */
enum {
    GB_CLK_IDLE = 1, GB_CLK_APP_SETTING = 2, GB_CLK_POWER_CAP = 4, GB_CLK_HW_SLOWDOWN = 8,
    GB_CLK_SYNC_BOOST = 16, GB_CLK_SW_THERMAL = 32, GB_CLK_HW_THERMAL = 64, GB_CLK_POWER_BRAKE = 128,
    GB_CLK_DISPLAY = 256
};
#define GB_CLK_NREASONS 9
/* Bit i's name ("power_cap", ...), as results name it. */
const char *gb_clock_reason_name(int i);
/* The limits that make a result "power-limited" / "thermally limited". */
#define GB_CLK_POWER_LIMITS (GB_CLK_POWER_CAP | GB_CLK_POWER_BRAKE)
#define GB_CLK_THERMAL_LIMITS (GB_CLK_SW_THERMAL | GB_CLK_HW_THERMAL | GB_CLK_HW_SLOWDOWN)

/* One sample of a device during a timed phase (gb_backend.monitor_read):
 * NAN where a value could not be read; reasons valid when has_reasons. */
typedef struct {
    int want_clocks;    /* in: read the clocks and reasons too (else only the counter: cheaper) */
    double energy_j;    /* the device's cumulative energy counter, J */
    double power_w;     /* instantaneous (averaged by the driver) power */
    double sm_mhz, mem_mhz;
    unsigned reasons;   /* GB_CLK_* */
    int has_reasons;
} gb_monitor_sample;

/* What a device's monitor offers (gb_backend.monitor_info). */
typedef struct {
    int has_energy;          /* a cumulative energy counter */
    int has_clocks;
    double resolution_j;     /* the counter's unit (NVML: 1 mJ) */
    double power_limit_w;    /* enforced limit; NAN: unknown */
    char counter[64];        /* "nvmlDeviceGetTotalEnergyConsumption" */
    char boundary[64];       /* "GPU board" */
    char why[160];           /* when !has_energy: why not */
} gb_monitor_info;
#endif
