/* report_internal.h — the report's reading of a results document into
 * rows (report_rows.c), shared by the files that render them: the summary
 * (report.c), its sections (report_sections.c), the CSV records
 * (report_records.c), the two-machine pair (report_pair.c) and the per-case
 * lines (report_case.c). Internal to the report. */
#ifndef GB_REPORT_INTERNAL_H
#define GB_REPORT_INTERNAL_H
#include "report.h"
#include "results_model.h"
#include "writer.h"


/* A case's columns: the host backend's result, then one per timing of the
 * accelerator, in the order it declares them (device-resident, end-to-end
 * and end-to-end overlapped for CUDA): which backend and timing fills which
 * comes from the results model, never from a name. Side 1 + j is the
 * accelerator's timing j; NACC bounds how many a document can show. */
enum { SIDE_CPU = 0, SIDE_DEV = 1, SIDE_E2E = 2, NACC = 3, NSIDES = 1 + NACC };

typedef struct {
    const gb_result *r;    /* NULL: the run has no such result */
    const char *backend, *status, *reason, *verif;
    double median, lo, hi; /* NAN when no statistics; lo, hi NAN with one sample */
    int n;                 /* samples */
    double rate, pct;      /* NAN when absent */
} side;

typedef struct {
    const gb_case_result *c;
    const char *op, *dtype, *label, *rate_kind, *run_name;
    int run;               /* index in a merged file's "runs"; 0 otherwise */
    int op_rank;           /* where its op first appears among the cases shown */
    double size;
    char params[256];      /* "k=v k=v", for sorting and CSV */
    side s[NSIDES];
    double speedup[NACC];  /* per accelerator timing; NAN when absent */
    long device;           /* the accelerator device of this row (a case measured on
                            * several has a row per device); -1: one device or none */
    char device_label[96]; /* label with the device: "4096 gpu1" */
} row;

/* What the document calls its sides: the host backend's timing and the
 * accelerator's, for column heads, footnotes and CSV columns. */
typedef struct {
    int nacc;                /* the accelerator's timings (at most NACC) */
    char word[NSIDES][32];   /* "host", "device", "end-to-end", "end-to-end-overlapped" */
    char name[NSIDES][32];   /* "host", "device", "end_to_end", "end_to_end_overlapped" */
    char label[NSIDES][32];  /* "cpu", "gpu dev", "gpu e2e", "gpu e2e-ovl" */
    char brief[NACC][16];    /* the accelerator's: "dev", "e2e", "e2e-ovl" */
} side_names;

typedef struct {
    const gb_results *r;
    row *rows;
    size_t n;
    const char *cpu_model, *gpu_name, *gpu_reason;
    int threads;
    int gpu_cols;      /* some GPU result was measured: show the GPU columns */
    int merged;        /* a `gpubench merge` file: a run column, one machine line per run */
    size_t not_reached; /* cases an interruption kept the run from: listed in the file, no row */
    size_t host_copies; /* cases only repeating a twin's host rows (gb_rdoc_host_copy_only): no row */
    int narrow;        /* a terminal table without --wide: fit GB_REPORT_COLUMNS */
    side_names sn;     /* run 0's */
} rdoc;

/* A backend of run `run` that is neither its host library nor its
 * accelerator: a framework peer (`run --peers`), which has rows of its own
 * (report_peers.c) and never a library's side. */
int gb_rdoc_is_peer(const gb_results *r, int run, const char *backend);
/* The sides' names of run `run` of r. */
void gb_rdoc_side_names(const gb_results *r, int run, side_names *sn);
/* One row: case c of r (r may be NULL: a case alone, the built-in table
 * describes its backends); device: the row's accelerator device, -1 for a
 * case of one device. */
void gb_rdoc_row(const gb_results *r, const gb_case_result *c, long device, row *w);
/* The distinct accelerator devices of a case, in the order of its results,
 * into devs (at most cap); how many. */
int gb_rdoc_case_devices(const gb_case_result *c, long *devs, int cap);
/* Is name selected by the --op list (NULL or empty: every op)? */
int gb_rdoc_selected(const char *list, const char *name);
/* Is c only a copy of another case's host results (extra.same_as: a case
 * that differs from its twin only in a param the accelerator reads, such as
 * math=tf32) with no accelerator result? A CPU-only table would show the
 * twin's row again under a math=tf32 it never ran, so it has no row. */
int gb_rdoc_host_copy_only(const gb_results *r, const gb_case_result *c);
/* The rows of r's cases of the ops in `ops` (NULL: all), sorted (free
 * d->rows, also on failure). 0, or -1 out of memory. */
int gb_rdoc_read(const gb_results *r, const char *ops, rdoc *d);
/* Why a result is not ok, for a footnote: the reason, else the verdict. */
void gb_rdoc_why_not_ok(const side *s, char *buf, size_t len);
/* An op's charts (rows [a, b) of d), time and speedup against size, for a
 * writer that draws them (HTML: inline SVG); a chart that would hold more
 * series than reads is drawn once per variant (report_charts.c). */
void gb_report_charts(const gb_writer *wr, const rdoc *d, size_t a, size_t b, FILE *out);
/* The document's title: suite, host, GPU (a merged file: how many runs). */
void gb_rdoc_title(const gb_results *r, const rdoc *d, char *title, size_t len);
/* A speedup's colour: good above 1×, warn below, plain when there is none. */
gb_cell_class gb_rdoc_speedup_class(double v);

/* ---- the sections after the per-op tables (report_sections.c) ---------- */

/* The crossover table of the entries xs (those of the ops in ops); narrow:
 * a terminal table that fits GB_REPORT_COLUMNS. */
void gb_report_crossover_section(const gb_writer *wr, FILE *out, const gb_results *results,
                                 const gb_crossover_entry *xs, size_t nx, const char *ops, int color, int narrow);
/* The strong-scaling table (gb_scaling_compute), when the document has
 * cases with a "gpus" param. 0, or -1 out of memory. */
int gb_report_scaling_section(const gb_writer *wr, FILE *out, const gb_results *results, const char *ops, int color);
/* --devices-concurrent: each device alone and with every device at once. */
void gb_report_concurrent_section(const gb_writer *wr, FILE *out, const gb_results *results, const char *ops,
                                  int color);

/* The mixed-precision sentences (report_precision.c): each reduced
 * precision's rate as a multiple of float32's on the same side, with its
 * error against float64; nothing when the document has no such pair. */
void gb_report_precision_section(const gb_writer *wr, FILE *out, const gb_results *results, const char *ops);

/* ---- the frameworks beside the libraries (report_peers.c) -------------- */

/* One peer result of a row, held against the library on its side. */
typedef struct {
    const gb_result *r;
    const char *framework;
    int on_gpu;        /* an accelerator peer: held against the GPU's device time */
    int ok;            /* measured and not failed verification */
    double median;     /* s; NAN when not measured */
    double library;    /* the library's median on the same side, s; NAN when none */
    double vs_library; /* median / library: what the framework leaves on the table; NAN when either is absent */
} peer_view;
/* The peer results of row w (at most cap), in the case's order; how many. */
int gb_report_peer_views(const gb_results *r, const row *w, peer_view *out, int cap);
/* Whether some result of r is a peer's. */
int gb_report_doc_has_peers(const gb_results *r);
/* The frameworks section: every peer result beside its library, and the GPU
 * frameworks' speedups over the CPU's beside the libraries'; nothing when
 * the document has no peer. */
void gb_report_peers_section(const gb_writer *wr, FILE *out, const rdoc *d, int color);

/* ---- energy and clocks (report_energy.c) ------------------------------- */

/* An op table's energy columns (-1: not shown). */
typedef struct {
    int ratio, j[2], watts, per_j, clocks;
} energy_layout;
/* Whether some result of r has an energy or clocks object (else no energy
 * column, sentence or CSV field appears anywhere). */
int gb_report_doc_has_energy(const gb_results *r);
/* Add the energy columns for rows [a, b) of d, and fill them for row w. */
void gb_report_energy_columns(gb_table *t, const rdoc *d, size_t a, size_t b, energy_layout *L);
/* The share of its energy span a result's op ran (median over J/op / W);
 * NAN without a measured energy. */
double gb_report_energy_busy(const gb_result *r);
void gb_report_energy_cells(gb_table *t, long r, const row *w, const energy_layout *L);
/* J/op as the tables show it: the sum of n results' (devices at once),
 * "±N%" past 2%, "–" unless every one is measured within the bounds shown. */
void gb_report_energy_joules(char *buf, size_t len, const gb_result *const *rs, size_t n);
/* The "how to read" sentence of the energy columns (when r has any). */
void gb_report_energy_note(const gb_writer *wr, FILE *out, const gb_results *r);
/* The per-case line's energy words into buf ("" when none). */
void gb_report_energy_line(const row *w, char *buf, size_t len);
/* The CSV records' energy columns (0 when r has no energy), and a row's cells from column c. */
int gb_report_energy_csv_columns(const gb_results *r, gb_table *t);
void gb_report_energy_csv_cells(gb_table *t, long r, int c, const row *w);

/* The report's records (report_records.c): a table of one row per case of
 * d and one per crossover entry of the ops in ops (gb_table_free it, also
 * on failure). 0, or -1 out of memory. */
int gb_report_records(const rdoc *d, const gb_crossover_entry *xs, size_t nx, const char *ops, gb_table *t);
#endif
