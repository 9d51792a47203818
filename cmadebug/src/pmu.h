/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU PMUs as the kernel publishes them under
 * /sys/bus/event_source/devices/<pmu>/: type (what perf_event_attr.type
 * opens it by), cpus (the CPUs it counts on; several PMUs on big.LITTLE),
 * events/<name> ("event=0x0034") and format/event ("config:0-15").
 *
 * An Armv8 PMU lists only the common events the core's PMCEID0/PMCEID1 say
 * it counts (armv8pmu_event_attr_is_visible() in drivers/perf/arm_pmuv3.c);
 * an Armv7 PMU lists the whole Armv7 set whatever the core implements
 * (drivers/perf/arm_v7_pmu.c has no such filter).
 */
#ifndef CMADEBUG_PMU_H
#define CMADEBUG_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "path.h"

#define PMU_NAME_MAX		64
#define PMU_EVENT_NAME_MAX	64
#define PMU_CPUS_MAX		256

/* One file of events/. */
struct pmu_event {
	char name[PMU_EVENT_NAME_MAX];	/* "dtlb_walk" */
	uint64_t config;		/* its event= value placed by format/event */
	bool usable;			/* false: more than "event=N" (umask=, ...) */
};

struct pmu {
	char name[PMU_NAME_MAX];	/* "armv8_cortex_a53" */
	uint32_t type;
	char cpus[PMU_CPUS_MAX];	/* as published, "0-3"; "" for every CPU */
	struct pmu_event *events;	/* sorted by name */
	unsigned int nr_events;
};

struct pmu_list {
	struct pmu *pmu;		/* sorted by name (the directory listing is) */
	unsigned int nr;
};

/*
 * The CPU PMUs: those with a cpus file (every arm_pmu), or x86's "cpu".
 * Uncore PMUs are not: their cpumask names the CPU that services them, not
 * the CPUs whose work they count.  No event_source directory is no PMU, not
 * an error.  Prints one error line and returns the exit code on failure.
 */
int pmus_load(const struct sysroot *sr, struct pmu_list *list);
void pmus_free(struct pmu_list *list);

const struct pmu *pmu_find(const struct pmu_list *list, const char *name);
/* The PMU that counts on CPU, or NULL. */
const struct pmu *pmu_of_cpu(const struct pmu_list *list, long cpu);
const struct pmu_event *pmu_event_find(const struct pmu *pmu, const char *name);
/* Whether PMU counts on CPU. */
bool pmu_has_cpu(const struct pmu *pmu, long cpu);
/* The lowest CPU PMU counts on (0 for a PMU of every CPU). */
long pmu_first_cpu(const struct pmu *pmu);

/*
 * Parsers (buffer in, no I/O).  An events/ file: "event=0x0034\n" (Armv8),
 * "event=0x05\n" (Armv7); *ONLY_EVENT is false when other terms follow
 * (x86's "event=0xc0,umask=0x01"), which this tool does not place.
 * 0 or -EINVAL.
 */
int pmu_parse_event_term(const char *buf, size_t len, uint64_t *event,
			 bool *only_event);
/* format/event: "config:0-15" into *LO and *HI.  0 or -EINVAL. */
int pmu_parse_format(const char *buf, size_t len, unsigned int *lo,
		     unsigned int *hi);
/* A cpulist ("0-3,6"): 1 if CPU is in it, 0 if not, -EINVAL if garbled. */
int cpulist_contains(const char *buf, size_t len, long cpu);

#endif
