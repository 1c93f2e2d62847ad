/* fuzz.h — what the fuzz harnesses share (tests/fuzz/README.md).
 *
 * Each harness defines LLVMFuzzerTestOneInput. It is built twice: with
 * clang's libFuzzer (`make fuzz`) to search for inputs that crash, leak or
 * hang, and with the normal compiler and tests/fuzz/replay.c (`make test`),
 * which feeds it every committed corpus file and past crash. */
#ifndef GB_FUZZ_H
#define GB_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
