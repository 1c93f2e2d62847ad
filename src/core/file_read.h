/* file_read.h — the one way gpubench opens a file to read it.
 *
 * Every file gpubench reads (suites, results — those history add and check
 * hash too —, compare policies, the files of compare --confirm's children,
 * FFTW wisdom, the kept CPU GEMM choice, a suite copied by slurm) is
 * opened here, and refused before a byte is read unless it is a regular file
 * no larger than its kind's limit:
 *   "w: not a regular file: a FIFO"
 *   "/dev/zero: not a regular file: a character device"
 *   "big.json: 3.0 GiB, over the 2.0 GiB limit for a results file"
 * The open itself never blocks: it is made with O_NONBLOCK (a FIFO with no
 * writer would wait forever otherwise) and the flag is cleared once fstat
 * says the file is regular. A sparse file over the limit is refused by its
 * size, without reading it. Standard input ("-") is a stream: it is read to
 * the limit and refused at the first byte past it.
 *
 * The limits, each at least 10× the largest real file of its kind (a merged
 * 64-node default run is about 170 MB; a suite or a policy a few KB; FFTW
 * wisdom for every size of the default suite under 100 KB): */
#ifndef GB_FILE_READ_H
#define GB_FILE_READ_H
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "gb.h"

#define GB_LIMIT_RESULTS ((size_t)2 << 30) /* results files (run, merge, confirm children): 2 GiB */
#define GB_LIMIT_SUITE ((size_t)64 << 20)  /* suite files: 64 MiB */
#define GB_LIMIT_POLICY ((size_t)16 << 20) /* compare policies: 16 MiB */
#define GB_LIMIT_WISDOM ((size_t)64 << 20) /* FFTW wisdom: 64 MiB */

#define GB_LIMIT_LIBRARY ((size_t)4 << 30) /* a shared library named to dlopen (--cpu-blas, GPUBENCH_BLIS): 4 GiB */

/* Open path read-only as above; the descriptor in *fd (close it), the size in
 * *size. what names the kind in the message ("a results file"). GB_OK, or
 * GB_FAIL with a message starting with the path. */
int gb_open_bounded(const char *path, const char *what, size_t limit, int *fd, size_t *size, gb_err *e);

/* What a file of mode m is when it is not a regular one, for a message:
 * "a FIFO", "a character device", "a directory", ... */
const char *gb_file_kind_name(mode_t m);

/* The whole file at path ("-": standard input, named "<stdin>"), read through
 * gb_open_bounded, into *buf (NUL-terminated, free it), its length in *len. */
int gb_read_bounded(const char *path, const char *what, size_t limit, char **buf, size_t *len, gb_err *e);

/* A log gpubench appends to (GPUBENCH_ENERGY_LOG): created 0644 when
 * missing, opened without blocking (a FIFO with no reader would wait
 * forever), a symbolic link at path refused (O_NOFOLLOW), and only a regular
 * file taken. *out is the stream (fclose it). GB_OK, or GB_FAIL with a
 * message starting with the path. */
int gb_open_append(const char *path, FILE **out, gb_err *e);

/* A file about to be handed to dlopen: when path names one (holds a '/'),
 * it must be a regular file, checked without blocking; a bare name is the
 * loader's to search. GB_OK, or GB_FAIL with a message starting with the path. */
int gb_check_library_file(const char *path, gb_err *e);
#endif
