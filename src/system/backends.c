/* backends.c — see backends.h. */
#include "backends.h"

#include <stdio.h>
#include <string.h>

#include "plugin.h"


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

    for (int i = 0; i < set->count; i++) {
        gb_backend_slot *s = &set->slot[i];
        if (!s->b) continue;
        gb_err why = {{0}};
        if (s->b->init(opt, &why) == GB_OK) s->available = 1;
        else snprintf(s->reason, sizeof s->reason, "%s", why.msg);
    }

    if (requested) {
        char buf[256];
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
        s->selected = s->available && (!requested || gb_list_contains(requested, s->name));
    }
    return GB_OK;
}

void gb_backends_describe(const gb_backend_set *set, cJSON *ctx) {
    cJSON *list = cJSON_AddObjectToObject(ctx, "backends");
    for (int i = 0; i < set->count; i++) {
        const gb_backend_slot *s = &set->slot[i];
        if (s->available && s->b->describe) s->b->describe(ctx);
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
        if (s->available && s->b->check) count += s->b->check(ctx, warnings);
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
        if (s->available && s->b->shutdown) s->b->shutdown();
    }
    gb_plugin_unload();
}
