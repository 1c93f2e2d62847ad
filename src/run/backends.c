/* backends.c — see backends.h. */
#include "backends.h"
#include "node_env.h"

#include <stdio.h>
#include <string.h>

#include "peer.h"
#include "plugin.h"


/* One slot per device of each backend that has devices (backends.h), each
 * named by the backend's use_device. */
static int expand_devices(gb_backend_set *set, gb_err *e) {
    int count = set->count;
    for (int i = 0; i < count; i++) {
        gb_backend_slot *s = &set->slot[i];
        if (!s->available || !s->b->device_count || !s->b->use_device) continue;
        int n = s->b->device_count();
        for (int k = 0; k < n; k++) {
            gb_backend_slot *d = s;
            if (k > 0) {
                if (set->count == GB_MAX_BACKENDS)
                    return gb_errf(e, GB_FAIL, "--devices: more devices than this build handles (%d)", GB_MAX_DEVICES);
                d = &set->slot[set->count++];
                *d = *s;
            }
            d->has_device = 1;
            d->device_pos = k;
            gb_err why = {{0}};
            if (s->b->use_device(k, &d->device, &why) != GB_OK) {
                d->available = d->selected = 0;
                snprintf(d->reason, sizeof d->reason, "%s", why.msg);
            }
        }
    }
    return GB_OK;
}

int gb_backends_use(const gb_backend_slot *slot, gb_err *e) {
    if (!slot->has_device) return GB_OK;
    gb_device_info info;
    return slot->b->use_device(slot->device_pos, &info, e);
}

int gb_backends_first_of_backend(const gb_backend_slot *slot) { return !slot->has_device || slot->device_pos == 0; }

int gb_backends_device_count(const gb_backend_set *set) {
    int n = 0;
    for (int i = 0; i < set->count; i++) n += set->slot[i].selected && set->slot[i].has_device;
    return n;
}

int gb_backends_init(gb_backend_set *set, const char *requested, const gb_backend_options *opt,
                     gb_err *e) {
    memset(set, 0, sizeof *set);
    gb_backend_slot *cpu = &set->slot[set->count++];
    cpu->b = gb_cpu_backend();
    cpu->name = "cpu";
    gb_backend_slot *cuda = &set->slot[set->count++];
    cuda->name = "cuda";
    gb_err load = {{0}};
    cuda->b = gb_plugin_load_cuda(&load);
    snprintf(cuda->reason, sizeof cuda->reason, "%s", load.msg);
    /* the framework peers asked for (--peers): after the libraries, so that
     * the host library is the first host backend (speedups, references) */
    for (int i = 0; i < gb_peer_count() && set->count < GB_MAX_BACKENDS; i++) {
        gb_backend_slot *p = &set->slot[set->count++];
        p->b = gb_peer_backend(i);
        p->name = p->b->name;
        p->peer = 1;
    }

    for (int i = 0; i < set->count; i++) {
        gb_backend_slot *s = &set->slot[i];
        if (!s->b) continue;
        gb_err why = {{0}};
        /* a library's own threads (the CUDA driver's) are made during init:
         * on the whole CPU set, not on the host backend's main-thread CPU */
        gb_thread_mask m;
        if (s->b->role != GB_ROLE_HOST) gb_node_thread_widen(&m);
        if (s->b->init(opt, &why) == GB_OK) s->available = 1;
        else snprintf(s->reason, sizeof s->reason, "%s", why.msg);
        if (s->b->role != GB_ROLE_HOST) gb_node_thread_restore(&m);
    }

    if (requested) {
        /* every entry named: "--backend ''" (or "cpu,,cuda", ",cpu") is an
         * error, not "every backend" (strtok skips empty entries) */
        size_t len = strlen(requested);
        if (!len || requested[0] == ',' || requested[len - 1] == ',' || strstr(requested, ",,"))
            return gb_errf(e, GB_FAIL, "--backend \"%s\": an empty entry (expected a list such as cpu,cuda)",
                           requested);
        char buf[256];
        if (len >= sizeof buf) return gb_errf(e, GB_FAIL, "--backend: the list is too long (known: cpu, cuda)");
        snprintf(buf, sizeof buf, "%s", requested);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            gb_backend_slot *s = NULL;
            for (int i = 0; i < set->count; i++)
                if (strcmp(set->slot[i].name, tok) == 0) s = &set->slot[i];
            if (!s) return gb_errf(e, GB_FAIL, "--backend: unknown backend \"%s\" (known: cpu, cuda)", tok);
            if (!s->available)
                return gb_errf(e, GB_FAIL, "--backend %s: unavailable: %s", tok, s->reason);
        }
    }
    for (int i = 0; i < set->count; i++) {
        gb_backend_slot *s = &set->slot[i];
        s->selected = s->available && (!requested || s->peer || gb_list_contains(requested, s->name));
    }
    return expand_devices(set, e);
}

/* context.devices: every device the run measures, in the order measured. */
static void describe_devices(const gb_backend_set *set, cJSON *ctx) {
    if (!gb_backends_device_count(set)) return;
    cJSON *list = cJSON_AddArrayToObject(ctx, "devices");
    for (int i = 0; i < set->count; i++) {
        const gb_backend_slot *s = &set->slot[i];
        if (!s->selected || !s->has_device) continue;
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "backend", s->name);
        cJSON_AddNumberToObject(d, "index", s->device.index);
        cJSON_AddStringToObject(d, "name", s->device.name);
        cJSON_AddStringToObject(d, "uuid", s->device.uuid);
        cJSON_AddStringToObject(d, "pci_bus_id", s->device.pci_bus_id);
        cJSON_AddItemToArray(list, d);
    }
}

void gb_backends_describe(const gb_backend_set *set, cJSON *ctx) {
    cJSON *list = cJSON_AddObjectToObject(ctx, "backends");
    describe_devices(set, ctx);
    for (int i = 0; i < set->count; i++) {
        const gb_backend_slot *s = &set->slot[i];
        if (!gb_backends_first_of_backend(s)) continue; /* one entry per backend */
        gb_err ignored = {{0}};
        if (s->available && s->b->describe && gb_backends_use(s, &ignored) == GB_OK) s->b->describe(ctx);
        cJSON *o = cJSON_AddObjectToObject(list, s->name);
        cJSON_AddBoolToObject(o, "available", s->available);
        cJSON_AddBoolToObject(o, "selected", s->selected);
        if (!s->available) cJSON_AddStringToObject(o, "reason", s->reason);
        if (!s->b) continue;
        /* what readers of the results need to know of this backend, so that
         * they name none (results model, reports, compare) */
        cJSON_AddStringToObject(o, "role", s->b->role == GB_ROLE_HOST ? "host" : "accelerator");
        cJSON *timings = cJSON_AddArrayToObject(o, "timings");
        for (int t = 0; t < s->b->ntimings; t++) {
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "name", s->b->timings[t]);
            cJSON_AddStringToObject(x, "label", s->b->timing_labels[t] ? s->b->timing_labels[t] : s->b->timings[t]);
            cJSON_AddItemToArray(timings, x);
        }
    }
}

int gb_backends_check(const gb_backend_set *set, const cJSON *ctx, cJSON *warnings) {
    int count = 0;
    for (int i = 0; i < set->count; i++) {
        const gb_backend_slot *s = &set->slot[i];
        if (s->available && s->b->check && gb_backends_first_of_backend(s)) count += s->b->check(ctx, warnings);
    }
    return count;
}

void gb_backends_disable(gb_backend_slot *slot, const char *reason) {
    slot->disabled = 1;
    snprintf(slot->reason, sizeof slot->reason, "%s", reason);
}

void gb_backends_shutdown(gb_backend_set *set) {
    for (int i = 0; i < set->count; i++) {
        gb_backend_slot *s = &set->slot[i];
        if (s->available && s->b->shutdown && gb_backends_first_of_backend(s)) s->b->shutdown();
    }
    gb_plugin_unload();
}

/* ---- the backends' own options -------------------------------------------- */

/* The linked-in backends' process settings (the plugin's are its own: it
 * loads after the process is set up). */
static const gb_backend_process *linked_in(int i) { return i == 0 ? gb_cpu_process() : i == 1 ? gb_peer_process() : NULL; }

/* The i-th option over every linked-in backend, with its backend. */
static const gb_backend_flag *nth_flag(int i) {
    for (int b = 0; linked_in(b); b++)
        for (const gb_backend_flag *f = linked_in(b)->flags; f && f->name; f++)
            if (i-- == 0) return f;
    return NULL;
}

int gb_backend_options_getopt(struct option *opts, int n, int cap) {
    for (int i = 0; nth_flag(i) && n + 1 < cap; i++)
        opts[n++] = (struct option){nth_flag(i)->name, required_argument, 0, GB_BACKEND_OPTION + i};
    opts[n] = (struct option){0, 0, 0, 0};
    return n;
}

int gb_backend_option_set(int val, const char *value, gb_err *e) {
    const gb_backend_flag *f = nth_flag(val - GB_BACKEND_OPTION);
    if (!f) return gb_errf(e, GB_FAIL, "no such backend option");
    return f->set(value, e);
}

void gb_backend_options_synopsis(FILE *out) {
    for (int i = 0; nth_flag(i); i++)
        if (nth_flag(i)->synopsis) fprintf(out, " %s", nth_flag(i)->synopsis);
}

void gb_backend_options_help(FILE *out) {
    for (int i = 0; nth_flag(i); i++)
        if (nth_flag(i)->help) fputs(nth_flag(i)->help, out);
}

int gb_backends_setup_process(char **argv, gb_err *e) {
    for (int b = 0; linked_in(b); b++)
        if (linked_in(b)->setup_process && linked_in(b)->setup_process(argv, e) != GB_OK) return GB_FAIL;
    return GB_OK;
}
