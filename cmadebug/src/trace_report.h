/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a trace.dat back: trace-cmd's files (any version libtracecmd
 * reads) and those `cmadebug trace record -o` writes, through libtracecmd.
 * Debian ships libtracecmd as a shared library only, so the statically
 * linked guest builds have no `trace report` (TRACE_REPORT is 0 there).
 */
#ifndef CMADEBUG_TRACE_REPORT_H
#define CMADEBUG_TRACE_REPORT_H

#include "trace.h"

#ifdef HAVE_LIBTRACECMD
#define TRACE_REPORT 1
#else
#define TRACE_REPORT 0
#endif

/*
 * The records of FILE's top-level buffer and of its instance buffers,
 * sorted by time; events a page marked as lost go to R->lost.  0, or one
 * error line and EXIT_ENV (unreadable, not a trace.dat, no CMA events).
 */
int trace_report_load(const char *file, struct trace_recs *r);

#endif
