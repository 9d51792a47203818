// SPDX-License-Identifier: GPL-2.0
/* trace.dat through libtracecmd (see trace_report.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_report.h"
#include "util.h"

#ifdef HAVE_LIBTRACECMD
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "trace_dat.h"

struct report_ctx {
	struct trace_conv conv;
	struct trace_recs *r;
	FILE *stream;		/* the child's frames to the parent */
	unsigned long calls;
	unsigned int malformed;
	int err;
	/*
	 * The file offset of each CPU's last record plus one (0: none yet):
	 * a damaged page can make libtracecmd's kbuffer hand back the same
	 * record for ever, so a record that does not advance ends the read.
	 */
	unsigned long long *next_offset;
	unsigned int nr_cpus, cap_cpus;
	int stuck_cpu;
	unsigned long long stuck_offset;
};

/* false once CPU's records stop moving forward through the file. */
static bool record_advances(struct report_ctx *ctx, int cpu,
			    unsigned long long offset)
{
	void *v = ctx->next_offset;

	if (cpu < 0)
		return true;
	while ((unsigned int)cpu >= ctx->nr_cpus) {
		if (grow_array(&v, ctx->nr_cpus, &ctx->cap_cpus,
			       sizeof(*ctx->next_offset)))
			return true;	/* not checked; the caller sees no error */
		ctx->next_offset = v;
		ctx->next_offset[ctx->nr_cpus++] = 0;
	}
	if (ctx->next_offset[cpu] && offset < ctx->next_offset[cpu]) {
		ctx->stuck_cpu = cpu;
		ctx->stuck_offset = offset;
		return false;
	}
	ctx->next_offset[cpu] = offset + 1;
	return true;
}

/*
 * libtracecmd is run in a child process (see trace_report_load()), which
 * sends what it reads as frames: a type byte, then the payload.
 */
enum frame_type {
	FRAME_RECORD = 'R',	/* a struct trace_rec */
	FRAME_ALIVE = 'A',	/* reading goes on: no payload */
	FRAME_END = 'E',	/* a struct frame_end: the last frame */
};

struct frame_end {
	int ret;		/* EXIT_OK or EXIT_ENV, the line already printed */
	uint64_t lost;
	bool lost_unknown;
	uint32_t formats;
};

static void frame_put(FILE *f, enum frame_type type, const void *p,
		      size_t len)
{
	putc(type, f);
	if (len)
		fwrite(p, 1, len, f);
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec,
		     int cpu, void *data)
{
	struct report_ctx *ctx = data;
	struct trace_rec *out;
	int n;

	(void)h;
	if (!record_advances(ctx, cpu, rec->offset)) {
		ctx->err = -ELOOP;
		return -1;	/* stop; the records so far are kept */
	}
	if (rec->missed_events > 0)
		ctx->r->lost += (uint64_t)rec->missed_events;
	else if (rec->missed_events < 0)
		ctx->r->lost_unknown = true;
	out = trace_recs_add(ctx->r);
	if (!out) {
		ctx->err = -ENOMEM;
		return -1;	/* stop: libtracecmd goes on while >= 0 */
	}
	n = trace_conv_record(&ctx->conv, rec, out);
	if (n <= 0)
		ctx->r->nr--;
	if (n < 0)
		ctx->malformed++;
	if (n > 0 && ctx->stream) {
		frame_put(ctx->stream, FRAME_RECORD, out, sizeof(*out));
		ctx->r->nr--;	/* the parent keeps it */
	}
	/* Records not ours still show the parent that reading goes on. */
	if (ctx->stream && !(++ctx->calls % 1024)) {
		frame_put(ctx->stream, FRAME_ALIVE, NULL, 0);
		fflush(ctx->stream);
	}
	return 0;
}

/* One buffer (the top level, or an instance): 0, -ENOENT, -ENOMEM or -ELOOP. */
static int read_buffer(struct tracecmd_input *h, struct report_ctx *ctx)
{
	if (trace_conv_init(&ctx->conv, tracecmd_get_tep(h)))
		return -ENOENT;
	ctx->r->formats |= trace_conv_formats(&ctx->conv);
	ctx->nr_cpus = 0;	/* another buffer, other file offsets */
	if (tracecmd_iterate_events(h, NULL, 0, on_record, ctx) < 0 &&
	    !ctx->err)
		return -EINVAL;
	return ctx->err;
}

/*
 * libtracecmd trusts each ring-buffer page as kbuffer does: a padding
 * record that points at itself loops inside it, before any callback.  So a
 * version 6 file is walked first (trace_dat_repair()) in a private mapping;
 * if a page had to be cut short, libtracecmd reads the repaired copy from
 * a memfd, and one line says where the file was damaged.  Other versions
 * are opened as they are (the record guard in on_record() still holds).
 */
static struct tracecmd_input *open_checked(const char *file, bool *reported)
{
	struct tracecmd_input *h = NULL;
	struct trace_dat_damage damage;
	unsigned char *map = MAP_FAILED;
	struct stat st;
	int fd, memfd = -1, cut = -ENOTSUP;

	*reported = false;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE, fd, 0);
	if (map != MAP_FAILED)
		cut = trace_dat_repair(map, (size_t)st.st_size, &damage);
	if (cut == -ERANGE) {
		err_msg("trace report: %s: cut short: cpu%u's data would end at byte %llu, the file has %llu",
			file, damage.cpu, (unsigned long long)damage.data_end,
			(unsigned long long)st.st_size);
		*reported = true;
	} else if (cut > 0) {
		err_msg("trace report: %s: cpu%u's ring-buffer page at file offset %llu: %s (at byte %zu); %d damaged pages read only up to the damage",
			file, damage.cpu, (unsigned long long)damage.page_offset,
			damage.why, damage.offset, cut);
		memfd = memfd_create("cmadebug-trace.dat", MFD_CLOEXEC);
		if (memfd < 0 || write_all(memfd, map, (size_t)st.st_size) ||
		    lseek(memfd, 0, SEEK_SET)) {
			if (memfd >= 0)
				close(memfd);
			errno = memfd < 0 ? errno : EIO;
			goto out;
		}
		h = tracecmd_open_fd(memfd, TRACECMD_FL_LOAD_NO_PLUGINS);
	} else {
		h = tracecmd_open(file, TRACECMD_FL_LOAD_NO_PLUGINS);
	}
out:
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	close(fd);
	return h;
}

/* The whole read, in the child: STREAM gets the records as they come. */
static int load_in_process(const char *file, struct trace_recs *r,
			   FILE *stream)
{
	struct report_ctx ctx = { .r = r, .stream = stream };
	struct tracecmd_input *h;
	bool found = false, reported;
	int ret, n;

	memset(r, 0, sizeof(*r));
	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = open_checked(file, &reported);
	if (!h) {
		if (reported)
			return EXIT_ENV;
		err_msg("trace report: %s: %s", file,
			errno && errno != EINVAL ? strerror(errno) :
			"not a trace.dat file libtracecmd can read");
		return EXIT_ENV;
	}
	ret = read_buffer(h, &ctx);
	found = !ret;
	n = tracecmd_buffer_instances(h);
	for (int i = 0; i < n && (!ret || ret == -ENOENT); i++) {
		struct tracecmd_input *ih = tracecmd_buffer_instance_handle(h, i);

		if (!ih)
			continue;
		ret = read_buffer(ih, &ctx);
		found |= !ret;
		tracecmd_close(ih);
	}
	tracecmd_close(h);
	free(ctx.next_offset);
	if (ret == -ENOMEM) {
		err_msg("out of memory");
	} else if (ret == -ELOOP) {
		err_msg("trace report: %s: cpu%d's record at file offset %llu does not follow the one before (a damaged page); %u records read before it",
			file, ctx.stuck_cpu, ctx.stuck_offset, r->nr);
		ret = 0;	/* the summary of what was read, as for malformed records */
	} else if (ret == -EINVAL) {
		err_msg("trace report: %s: the event data cannot be read", file);
	} else if (!found) {
		err_msg("trace report: %s holds no cma, migrate or linear_map events' formats",
			file);
		ret = -ENOENT;
	} else {
		ret = 0;
		if (ctx.malformed)
			err_msg("trace report: %s: %u malformed records skipped",
				file, ctx.malformed);
	}
	return ret ? EXIT_ENV : EXIT_OK;
}

/* The child's side: read FILE, send frames to FD, exit. */
static void __attribute__((noreturn)) report_child(const char *file, int fd)
{
	struct trace_recs r = { 0 };
	struct frame_end end = { 0 };
	FILE *stream = fdopen(fd, "w");

	if (!stream)
		_exit(EXIT_ENV);
	end.ret = load_in_process(file, &r, stream);
	end.lost = r.lost;
	end.lost_unknown = r.lost_unknown;
	end.formats = r.formats;
	frame_put(stream, FRAME_END, &end, sizeof(end));
	trace_recs_free(&r);
	_exit(fclose(stream) ? EXIT_ENV : EXIT_OK);
}

/* Reads exactly LEN bytes unless the stream ends: the bytes read. */
static size_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

/*
 * Seconds the child may read without a frame: libtracecmd sends one every
 * 1024 records, so only a loop inside the library is this quiet.
 */
static int stall_seconds(void)
{
	const char *v = getenv("CMADEBUG_STALL_SECONDS");
	uint64_t s;

	if (v && !parse_u64(v, strlen(v), &s) && s >= 1 && s <= 3600)
		return (int)s;
	return 30;
}

/*
 * libtracecmd trusts the file: a cut-short or damaged one can crash it or
 * make it loop inside kbuffer.  So it runs in a child; the parent keeps the
 * records that arrived, and a crash or a stall is one line, not the end of
 * cmadebug.
 */
int trace_report_load(const char *file, struct trace_recs *r)
{
	struct frame_end end = { .ret = -1 };
	int fds[2], status = 0, timeout_ms = stall_seconds() * 1000;
	bool stalled = false;
	pid_t child;

	memset(r, 0, sizeof(*r));
	if (pipe2(fds, O_CLOEXEC)) {
		err_msg("trace report: pipe: %s", strerror(errno));
		return EXIT_ENV;
	}
	fflush(NULL);
	child = fork();
	if (child < 0) {
		err_msg("trace report: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return EXIT_ENV;
	}
	if (!child) {
		close(fds[0]);
		report_child(file, fds[1]);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		struct trace_rec *rec;
		unsigned char type;
		int n = poll(&pfd, 1, timeout_ms);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			stalled = true;
			kill(child, SIGKILL);
			break;
		}
		if (n < 0 || read_full(fds[0], &type, 1) != 1)
			break;
		if (type == FRAME_END) {
			if (read_full(fds[0], &end, sizeof(end)) != sizeof(end))
				end.ret = -1;
			break;
		}
		if (type != FRAME_RECORD)
			continue;
		rec = trace_recs_add(r);
		if (!rec) {
			err_msg("out of memory");
			kill(child, SIGKILL);
			end.ret = EXIT_ENV;
			break;
		}
		if (read_full(fds[0], rec, sizeof(*rec)) != sizeof(*rec)) {
			r->nr--;
			break;
		}
	}
	close(fds[0]);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (stalled) {
		err_msg("trace report: %s: libtracecmd made no progress for %d s (it loops on a damaged page); %u records read before it",
			file, timeout_ms / 1000, r->nr);
		end.ret = r->nr ? EXIT_OK : EXIT_ENV;
	} else if (end.ret < 0) {
		err_msg("trace report: %s: libtracecmd %s%s%s (a damaged or cut-short file); %u records read before it",
			file, WIFSIGNALED(status) ? "crashed (" : "stopped without finishing",
			WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "",
			WIFSIGNALED(status) ? ")" : "", r->nr);
		end.ret = r->nr ? EXIT_OK : EXIT_ENV;
	}
	r->lost = end.lost;
	r->lost_unknown = end.lost_unknown;
	r->formats = end.formats;
	if (end.ret) {
		trace_recs_free(r);
		return EXIT_ENV;
	}
	trace_recs_sort(r);
	return EXIT_OK;
}
#else
int trace_report_load(const char *file, struct trace_recs *r)
{
	(void)file;
	memset(r, 0, sizeof(*r));
	err_msg("trace report: this cmadebug was built without libtracecmd (a static build); run it on the host");
	return EXIT_ENV;
}
#endif
