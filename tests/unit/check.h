/* SPDX-License-Identifier: ISC */
/*
 * check.h - the unit tests' harness.  Each TEST() prints one result line
 * for tests/run: "PASS: name" or "FAIL: name: file:line: what".
 */
#ifndef PS_CHECK_H
#define PS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failed_total;
static int check_failed_here;
static const char *check_name;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond) && !check_failed_here++)                         \
			printf("FAIL: %s: %s:%d: %s\n", check_name, __FILE__, \
			       __LINE__, #cond);                             \
	} while (0)

#define CHECK_EQ(a, b)                                                       \
	do {                                                                 \
		long long a_ = (long long)(a), b_ = (long long)(b);          \
		if (a_ != b_ && !check_failed_here++)                        \
			printf("FAIL: %s: %s:%d: %s == %lld, expected %lld\n", \
			       check_name, __FILE__, __LINE__, #a, a_, b_);  \
	} while (0)

#define TEST(fn)                                                             \
	do {                                                                 \
		check_name = #fn;                                            \
		check_failed_here = 0;                                       \
		fn();                                                        \
		if (check_failed_here)                                       \
			check_failed_total++;                                \
		else                                                         \
			printf("PASS: %s\n", #fn);                           \
	} while (0)

#define CHECK_DONE() (check_failed_total ? 1 : 0)

#endif
