/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The VM-life replay (cmd_replay.c): a scenario of events (docs/replay.md)
 * parsed from a file or imported from a QEMU trace (replay_qemu.c), run
 * against VFIO type1 on a fresh simulated machine, costs per phase.
 */
#ifndef DMASIM_CLI_REPLAY_H
#define DMASIM_CLI_REPLAY_H

#include <stdio.h>

#include <dmasim/kapi_vfio_group.h>
#include <dmasim/sim.h>

#define REPLAY_MAX_OBJS		64
#define REPLAY_MAX_PHASES	32
#define REPLAY_MAX_EVENTS	(1U << 24)

enum replay_kind {
	REPLAY_CONTAINER, REPLAY_RAM, REPLAY_GPU, REPLAY_PHASE,
	REPLAY_ADD, REPLAY_DEL, REPLAY_BAR_ON, REPLAY_BAR_OFF,
};

struct replay_event {
	enum replay_kind kind;
	unsigned int line;		/* in the file, for messages */
	unsigned int obj;		/* RAM, GPU, ADD, BAR_*: the object */
	unsigned int phase;		/* PHASE: its index */
	unsigned long long iova, offset, size;
	int zap;			/* DEL: zap obj's mmap at offset too */
};

/* A guest RAM backing or a GPU (its BAR). */
struct replay_obj {
	char name[32];
	int gpu;
	int leaf;			/* KAPI_MM_LEAF_*: BAR leaves, RAM pages */
	unsigned long long size;
	unsigned long va;		/* while running */
	unsigned long long iova;	/* GPU: where its BAR is mapped */
	int mapped;
	/* GPU: a vfio-pci device in a group of its own, and the VMM's fds */
	struct kapi_vfio_pci *dev;
	int gfd, dfd;
	int decode_off;			/* memory decode turned off */
};

struct replay {
	const char *file;
	unsigned long long ram;		/* host RAM */
	int fmt;			/* IOMMU format */
	int has_container;
	struct replay_obj objs[REPLAY_MAX_OBJS];
	unsigned int nr_objs;
	char phases[REPLAY_MAX_PHASES][32];
	unsigned int nr_phases;		/* phase 0 is "setup" */
	struct replay_event *events;
	unsigned int nr_events, max_events;
	int cfd;			/* while running: the container fd */
	int iommu_set;			/* VFIO_SET_IOMMU done */
	char error[512];
};

/* The ioctls of one kind in one phase: how many, counters, wall time. */
struct replay_cost {
	unsigned long long ops;
	struct sim_counters counts;
	double wall_ms;
};

struct replay_phase {
	struct replay_cost map, unmap;
	struct sim_counters setup;	/* building RAM and GPUs (phase 0) */
};

struct replay_run {
	struct replay_phase phases[REPLAY_MAX_PHASES];
	/* GPU objects: their vfio-pci device's faults and zaps, at the end */
	struct kapi_vfio_pci_stats dev[REPLAY_MAX_OBJS];
};

void replay_init(struct replay *r, const char *file);
void replay_fini(struct replay *r);
/* Blank-separated words of line ('#' starts a comment); their count. */
int replay_words(char *line, char **w, int max);
/* Append an event; 0 or -1 with r->error set. */
int replay_push_event(struct replay *r, const struct replay_event *e);
/* One event from its words; 0 or -1 with r->error set. */
int replay_add_event(struct replay *r, unsigned int line, char **w, int n);
/* A scenario file; 0 or -1 with r->error set. */
int replay_parse_file(struct replay *r, FILE *f);
/*
 * QEMU `-trace 'vfio_*'` output (replay_qemu.c): the host objects its
 * region_add_ram lines reach, and add/del events; 0 or -1 with r->error.
 */
int replay_import_qemu(struct replay *r, FILE *f);
/* Run on a fresh machine, 6.12's page-by-page lookups if legacy_mask. */
int replay_run(struct replay *r, int legacy_mask, struct replay_run *run);

#endif
