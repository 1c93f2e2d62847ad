/* slurm_script.c — the shell quoting and header the writers of `gpubench
 * slurm`'s files share (slurm_script.h). */
#include "slurm_script.h"

void gb_sh_word(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

void gb_sh_assign(FILE *f, const char *name, const char *value) {
    fprintf(f, "%s=", name);
    gb_sh_word(f, value);
    fputc('\n', f);
}

void gb_slurm_header(FILE *f, const gb_slurm_job *j, const char *what) {
    fprintf(f, "#!/bin/bash\n# %s\n# Written by gpubench %s: ", what, GB_VERSION);
    fputs(j->command_line, f);
    fputs("\n", f);
}

long gb_slurm_units_per_task(const gb_slurm_job *j) { return j->per_gpu ? j->gpus_per_node : 1; }

