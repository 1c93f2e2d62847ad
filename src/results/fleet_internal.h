/* fleet_internal.h — between fleet.c (the table) and fleet_verdict.c (the
 * verdicts over all of a column's or node's cases, and the nodes). */
#ifndef GB_FLEET_INTERNAL_H
#define GB_FLEET_INTERNAL_H
#include "fleet.h"

/* Every column's verdict from ratios[i] (nratios[i] of them: its cases'
 * times over each case's fleet median); flagged_slow set. 0, or -1 out of
 * memory. */
int gb_fleet_judge_columns(gb_fleet_result *res, double *const *ratios, const size_t *nratios);
/* res->nodes: every run of the documents, column i belonging to run
 * col_run[i] of document col_doc[i]; a node's verdict pools its columns'
 * ratios. Notes for nodes without a column. 0, or -1 out of memory. */
int gb_fleet_list_nodes(gb_fleet_result *res, const gb_results *const *docs, const char *const *names, size_t ndocs,
                        const size_t *col_doc, const int *col_run, double *const *ratios, const size_t *nratios);
/* The node-health facts of a run's "health" (text), as a line's tail ("; PCIe
 * gen4 x16; ECC errors ...; 0 XID events"); "" when none were read. */
void gb_fleet_node_health_text(const char *health_json, char *buf, size_t len);
/* health.after.<backend>.node, else before's; NULL when none. */
const cJSON *gb_fleet_node_health(const cJSON *health);
#endif
