/* peer_worker.h — one framework's worker process (scripts/cpu-peer-check.py
 * --worker NAME, scripts/peer_worker.py) and the line protocol gpubench
 * speaks with it over two pipes (docs/frameworks.md, "The protocol").
 *
 * Every read has a deadline: a worker that hangs past it, dies, or writes
 * what the protocol does not allow is killed (by its pid) and the request
 * fails with one line saying which; the next case starts a new worker. */
#ifndef GB_PEER_WORKER_H
#define GB_PEER_WORKER_H
#include <stddef.h>
#include <sys/types.h>
#include "gb.h"

typedef struct {
    pid_t pid;            /* 0: not running */
    int to, from;         /* its stdin, its stdout */
    char buf[8192];       /* what was read past the last line */
    size_t len;
} gb_peer_worker;

/* Start python script --worker name and read its first line into reply
 * (without "hello "/"unavailable "). GB_OK: hello (reply is its JSON);
 * GB_SKIP: the worker said unavailable, or could not start, or died, or
 * hung past timeout_s, or said something else (why in e). */
int gb_peer_worker_start(gb_peer_worker *w, const char *python, const char *script, const char *name,
                         double timeout_s, char *reply, size_t len, gb_err *e);
/* Send line (no newline) and read the answer's line into reply. GB_OK, or
 * GB_SKIP when the worker is gone, hung, or answered nonsense (it is then
 * stopped). */
int gb_peer_worker_ask(gb_peer_worker *w, const char *line, double timeout_s, char *reply, size_t len,
                       gb_err *e);
/* Read the next line (an answer that comes in several lines: fetch's). */
int gb_peer_worker_line(gb_peer_worker *w, double timeout_s, char *reply, size_t len, gb_err *e);
/* Read exactly n raw bytes (after an "out" line). */
int gb_peer_worker_read(gb_peer_worker *w, void *data, size_t n, double timeout_s, gb_err *e);
/* Ask it to quit, then kill it by its pid if it has not gone within a second. */
void gb_peer_worker_stop(gb_peer_worker *w);
#endif
