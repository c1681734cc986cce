/* check.h - the check counters and macros of the C unit tests (tests/unit/test_*.c).
 * Each test prints its own summary line from `checks` and `failures` and returns
 * failures != 0.
 *
 *   CHECK(cond)                    counts a check; when cond is false counts a failure and
 *   CHECK(cond, "fmt", args...)    prints "file:line: check failed: cond[: message]" to
 *                                  stderr (the format must be a string literal)
 *   CHECK_STR(got, want)           a check that two strings are equal; prints both if not
 *
 * A test may define before including this file:
 *   CHECK_MAX_REPORTS  print at most this many failures (the rest are only counted)
 *   CHECK_CONTEXT()    a statement run after each failure report, to print more state */
#ifndef TILEC_TEST_CHECK_H
#define TILEC_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int checks, failures;

#ifndef CHECK_MAX_REPORTS
#define CHECK_MAX_REPORTS 1000000
#endif
#ifndef CHECK_CONTEXT
#define CHECK_CONTEXT() ((void)0)
#endif

/* fmt is " " followed by the caller's message format (" " alone: no message). */
static inline void check_report(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline void check_report(const char *file, int line, const char *cond, const char *fmt,
                                ...) {
    fprintf(stderr, "%s:%d: check failed: %s", file, line, cond);
    if (strcmp(fmt, " ")) {
        va_list ap;
        va_start(ap, fmt);
        fputc(':', stderr);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stderr);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond) && ++failures <= CHECK_MAX_REPORTS) {                                          \
            check_report(__FILE__, __LINE__, #cond, " " __VA_ARGS__);                              \
            CHECK_CONTEXT();                                                                       \
        }                                                                                          \
    } while (0)

static inline void check_str(const char *file, int line, const char *got, const char *want) {
    checks++;
    if (strcmp(got ? got : "(null)", want)) {
        failures++;
        fprintf(stderr, "%s:%d: got\n%s\n---- want\n%s\n----\n", file, line, got ? got : "(null)",
                want);
    }
}
#define CHECK_STR(got, want) check_str(__FILE__, __LINE__, got, want)

#endif
