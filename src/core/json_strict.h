/* json_strict.h — the one way gpubench reads a JSON file it is given: suite
 * files, results files and compare policies all come through here, so all
 * three refuse the same things with the same words.
 *
 * cJSON alone accepts more than a gpubench file may hold:
 *   - an object with the same key twice (cJSON keeps both; every lookup
 *     finds the first, so a second "benchmarks" array was silently dropped);
 *   - a NUL byte (the text after it was ignored);
 *   - control characters inside strings (an ANSI escape sequence in an op
 *     name reached the terminal raw through report and compare);
 *   - bytes that are not UTF-8 (written back into a results file, Python's
 *     json.load refused it);
 *   - the escape \u0000 (cJSON ends the string there: "matmul\u0000x" ran
 *     matmul).
 * On top of cJSON's grammar this reader refuses, each with the file and the
 * place:
 *   "s.json: a NUL byte at line 3, column 7 (a JSON file is text)"
 *   "s.json: line 9: unexpected bytes after the JSON document near 'xyz'"
 *   "s.json: benchmarks[0]: duplicate key \"sizes\" (keys 2 and 5 of that object)"
 *   "r.json: cases[0].op: control character U+001B in a string (not allowed:
 *    nothing read from a file may reach a terminal as an escape sequence)"
 *   "s.json: name: invalid UTF-8 at byte 4 of the string (byte 0xE9; text
 *    must be UTF-8)"
 *   "s.json: benchmarks[0].op: NUL character (\u0000) in a string at line 3,
 *    column 20 (not allowed: the text would end there)"
 * Allowed in strings: tab and newline (in values, not in keys); refused: every
 * other C0 control, DEL and the C1 controls U+0080..U+009F. Texts larger than
 * GB_JSON_MAX_BYTES are refused before they are parsed. All checks are one
 * pass over the text and one over the tree (duplicate keys: a sort of each
 * object's keys), so reading is O(n log n) in the worst case. */
#ifndef GB_JSON_STRICT_H
#define GB_JSON_STRICT_H
#include <stddef.h>
#include <cjson/cJSON.h>

#include "file_read.h"
#include "gb.h"

/* The largest text parsed: the largest limit of file_read.h (a results
 * file's). Each kind of file has its own, smaller where its files are small;
 * a file is refused by its size before it is read. */
#define GB_JSON_MAX_BYTES GB_LIMIT_RESULTS

/* Parse text[0..len) strictly into *out (free with cJSON_Delete). name starts
 * every message. GB_OK, or GB_FAIL with *out NULL. */
int gb_json_parse_strict(const char *text, size_t len, const char *name, cJSON **out, gb_err *e);

/* Read the file at path ("-": standard input, named "<stdin>") through
 * file_read.h (a regular file of at most limit bytes; what names its kind in
 * a refusal: "a suite file") and parse it as above.
 * "r.json: cannot open: No such file or directory". */
int gb_json_read_limited(const char *path, const char *what, size_t limit, cJSON **out, gb_err *e);

/* Check a parsed tree for duplicate keys, control characters and text that
 * is not UTF-8 (what gb_json_parse_strict adds to cJSON, but \u0000, which
 * only the text shows). GB_OK or GB_FAIL naming the path. */
int gb_json_check_tree(const cJSON *doc, const char *name, gb_err *e);

/* Replace, in every key and string of doc (and its siblings), each character
 * the checks above refuse, and each byte of what is not UTF-8, by '?': what
 * gpubench writes, it can read back (an environment value, a hostname or a
 * /proc line recorded in a results file may hold anything). */
void gb_json_scrub(cJSON *doc);

/* One line of text from elsewhere (an environment value, git's output, a
 * name cut to fit a buffer, perhaps mid-character) made safe to store and
 * print, in place: each byte of what is not UTF-8 and each control
 * character becomes '?', as gb_json_scrub does for keys. */
void gb_text_scrub(char *s);

/* Where s stops being UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF): the byte offset of the first bad sequence, or -1
 * when all of s is UTF-8. For text that enters from elsewhere than a file
 * (the command line). */
long gb_utf8_invalid_at(const char *s);

/* A number to write, or null where v is not finite (JSON has no NaN or
 * infinity): the one such helper of every JSON writer. */
cJSON *gb_json_num_or_null(double v);

#endif
