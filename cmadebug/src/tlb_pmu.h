/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One group of kernel-only counters through perf_event_open (tlb.h has
 * what is counted and how a count is judged).
 */
#ifndef CMADEBUG_TLB_PMU_H
#define CMADEBUG_TLB_PMU_H

#include <sys/types.h>

#include "tlb.h"

struct tlb_group {
	unsigned int n;
	int fd[TLB_MAX_EVENTS];		/* -1: did not open */
	struct tlb_reading rd[TLB_MAX_EVENTS];
	int leader;			/* fd of the group leader, -1: none opened */
};

/*
 * Opens EVENTS as one group, kernel only (exclude_user, exclude_hv), for
 * PID (0: this task; a child: inherit, enabled at its exec).  PMU_TYPE is
 * the sysfs type of the PMU the group counts on (generic and raw events are
 * placed there), or -1.  An event that does not open is recorded
 * in rd[i].open_err.  Returns 0, or -EACCES/-EPERM (no permission: nothing
 * can be counted, the caller says so).
 */
int tlb_group_open(struct tlb_group *g, const struct tlb_event *events,
		   unsigned int n, int pmu_type, pid_t pid);
int tlb_group_start(struct tlb_group *g);	/* reset and enable */
int tlb_group_stop(struct tlb_group *g);	/* disable */
/* Reads every opened counter's value, time enabled and time running. */
int tlb_group_read(struct tlb_group *g);
void tlb_group_close(struct tlb_group *g);

#endif
