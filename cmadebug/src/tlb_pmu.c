// SPDX-License-Identifier: GPL-2.0
/* perf_event_open for 'cmadebug tlb' (tlb_pmu.h). */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tlb_pmu.h"

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			   int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			    PERF_FLAG_FD_CLOEXEC);
}

int tlb_group_open(struct tlb_group *g, const struct tlb_event *events,
		   unsigned int n, int pmu_type, pid_t pid)
{
	memset(g, 0, sizeof(*g));
	g->n = n;
	g->leader = -1;
	for (unsigned int i = 0; i < TLB_MAX_EVENTS; i++)
		g->fd[i] = -1;
	for (unsigned int i = 0; i < n; i++) {
		struct perf_event_attr attr;
		int fd;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = events[i].type;
		attr.config = events[i].config;
		/* An alias already names its PMU; generic and raw ones are placed on it. */
		if (pmu_type >= 0 && !events[i].pmu_alias) {
			if (attr.type == PERF_TYPE_RAW)
				attr.type = (uint32_t)pmu_type;
			else	/* hardware and cache events: the extended type */
				attr.config |= (uint64_t)pmu_type << PERF_PMU_TYPE_SHIFT;
		}
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		attr.exclude_user = 1;
		attr.exclude_hv = 1;
		attr.disabled = g->leader < 0;
		if (pid) {
			attr.inherit = 1;
			attr.enable_on_exec = g->leader < 0;
		}
		fd = perf_event_open(&attr, pid, -1, g->leader);
		g->fd[i] = fd;
		if (fd < 0) {
			int err = errno;

			if (err == EACCES || err == EPERM) {
				tlb_group_close(g);
				return -err;
			}
			g->rd[i].open_err = err;
			continue;
		}
		if (g->leader < 0)
			g->leader = fd;
	}
	return 0;
}

int tlb_group_start(struct tlb_group *g)
{
	if (g->leader < 0)
		return 0;
	if (ioctl(g->leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) ||
	    ioctl(g->leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP))
		return -errno;
	return 0;
}

int tlb_group_stop(struct tlb_group *g)
{
	if (g->leader < 0)
		return 0;
	if (ioctl(g->leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP))
		return -errno;
	return 0;
}

int tlb_group_read(struct tlb_group *g)
{
	for (unsigned int i = 0; i < g->n; i++) {
		uint64_t v[3];

		if (g->fd[i] < 0)
			continue;
		if (read(g->fd[i], v, sizeof(v)) != (ssize_t)sizeof(v))
			return errno ? -errno : -EIO;
		g->rd[i].value = v[0];
		g->rd[i].enabled = v[1];
		g->rd[i].running = v[2];
	}
	return 0;
}

void tlb_group_close(struct tlb_group *g)
{
	for (unsigned int i = 0; i < g->n; i++) {
		if (g->fd[i] >= 0)
			close(g->fd[i]);
		g->fd[i] = -1;
	}
	g->leader = -1;
}
