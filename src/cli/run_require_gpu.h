/* run_require_gpu.h — `run --require-gpu`: a node that was asked for its GPU
 * and measured none is a failed run, not a CPU-only success. The run still
 * measures what it can and writes its results (nothing is lost); the reason
 * ("no NVIDIA driver: ...", "no device visible: CUDA_VISIBLE_DEVICES=...")
 * goes into the results file (context.gpu_required and its warnings) and on
 * stderr, and the exit status is 3 (GB_EXIT_NO_GPU). On a cluster the SLURM
 * task then fails with that reason, and `report --fleet` lists the node with
 * it (issue 31 item 1). */
#ifndef GB_RUN_REQUIRE_GPU_H
#define GB_RUN_REQUIRE_GPU_H
#include <stddef.h>
#include <cjson/cJSON.h>

#include "backends.h"
#include "results_model.h"

/* Whether an accelerator measured at least one result (status ok) in
 * results; when not, why into why (len bytes): the accelerator's own reason
 * for being unavailable or disabled, else that every GPU case was skipped or
 * failed. Returns 1 measured, 0 not. */
int gb_run_gpu_measured(const gb_backend_set *set, const gb_results *results, char *why, size_t len);
/* context.gpu_required = {"measured": m, "reason": why or null}, and, when
 * not measured, the reason as a line of warnings. */
void gb_run_record_gpu_required(cJSON *context, cJSON *warnings, int measured, const char *why);
#endif
