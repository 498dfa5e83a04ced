// SPDX-License-Identifier: MIT
/*
 * AMDKFD_IOC_SMI_EVENTS (KFD 1.3): an fd per client that takes the event
 * mask by write() and hands out text records by read(), as
 * kfd_smi_events.c does.
 *
 * The kernel's fd is an anon inode with its own read/write/poll; kfdsim
 * runs inside the caller's process, so the fd it returns is one end of a
 * stream socketpair (non-blocking, like the kernel's read that answers
 * -EAGAIN when the FIFO is empty; poll() reports POLLIN when records are
 * waiting). kfdsim keeps the other end: it reads the latest mask from it
 * when an event happens (the kernel reads the mask at event time too) and
 * writes the record there. The kernel drops a record that does not fit
 * its client's 1 KiB FIFO; kfdsim's FIFO is the socket's buffer, which
 * AF_UNIX accounts with per-buffer overhead, so kfdsim drops a record once
 * 64 KiB are charged to it (never a partial record). A client that closed
 * its fd is forgotten at the next event.
 *
 * Delivery: the kernel gives an event with a pid only to clients of that
 * pid, unless the client has KFD_SMI_EVENT_ALL_PROCESS and CAP_SYS_ADMIN;
 * kfdsim serves every caller as unprivileged and all its processes share
 * one pid, so the pid rule never filters. Events kfdsim raises: VMFAULT
 * ("%x:%s\n", pid and task name, delivered to every client of the GPU,
 * as the kernel sends it with pid 0). Thermal throttling, GPU resets, SVM
 * migrations and page faults, queue eviction/restore and unmap events
 * never happen in kfdsim's model.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim_priv.h"

#define SMI_FIFO_LIMIT (64u << 10) /* see the top */
#define SMI_MSG_SIZE   96u         /* KFD_SMI_EVENT_MSG_SIZE */

int sim_ioctl_smi_events(struct sim_process *p, void *args)
{
	struct kfd_ioctl_smi_events_args *a = args;
	struct sim_pdd *pdd = sim_pdd_by_id(p, a->gpuid);
	struct sim_smi_client *c;
	struct kfdsim *sim = p->sim;
	int sv[2];

	if (!pdd)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		free(c);
		return -errno;
	}
	/* the caller's end: O_RDWR like anon_inode_getfd(.., O_RDWR), and
	 * reads never wait */
	fcntl(sv[0], F_SETFL, O_NONBLOCK | O_RDWR);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	c->fd = sv[1];
	pthread_mutex_lock(&sim->smi_lock);
	c->next = sim->smi[pdd->gpu->index];
	sim->smi[pdd->gpu->index] = c;
	pthread_mutex_unlock(&sim->smi_lock);
	a->anon_fd = (uint32_t)sv[0];
	return 0;
}

/* The mask the client wrote last (whole 8-byte writes, the newest wins);
 * false once the client closed its fd (the kernel's release). */
static bool update_mask(struct sim_smi_client *c)
{
	uint64_t buf[16];
	ssize_t n;

	while ((n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		if (n >= (ssize_t)sizeof(uint64_t))
			c->events = buf[n / 8 - 1];
	return n != 0;
}

static void free_client(struct sim_smi_client *c)
{
	close(c->fd);
	free(c);
}

static void smi_add(struct kfdsim *sim, struct sim_gpu *gpu, uint32_t event, const char *msg,
		    size_t len)
{
	struct sim_smi_client **pp;

	pthread_mutex_lock(&sim->smi_lock);
	pp = &sim->smi[gpu->index];
	while (*pp) {
		struct sim_smi_client *c = *pp;
		int queued = 0;
		ssize_t w;

		if (!update_mask(c)) {
			*pp = c->next; /* the client closed its fd */
			free_client(c);
			continue;
		}
		if (!(c->events & (1ULL << (event - 1))) ||
		    (ioctl(c->fd, SIOCOUTQ, &queued) == 0 &&
		     (size_t)queued + len > SMI_FIFO_LIMIT)) {
			pp = &c->next;
			continue;
		}
		w = send(c->fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0 && (errno == EPIPE || errno == ECONNRESET)) {
			*pp = c->next; /* the client closed its fd */
			free_client(c);
			continue;
		}
		pp = &c->next;
	}
	pthread_mutex_unlock(&sim->smi_lock);
}

void sim_smi_vmfault(struct kfdsim *sim, struct sim_gpu *gpu)
{
	char comm[17] = {0}, msg[SMI_MSG_SIZE];
	int len;

	if (!__atomic_load_n(&sim->smi[gpu->index], __ATOMIC_RELAXED))
		return;
	prctl(PR_GET_NAME, comm);
	len = snprintf(msg, sizeof(msg), "%x %x:%s\n", 1u /* KFD_SMI_EVENT_VMFAULT */,
		       (unsigned)getpid(), comm);
	if (len > (int)sizeof(msg) - 1)
		len = (int)sizeof(msg) - 1;
	smi_add(sim, gpu, 1, msg, (size_t)len);
}

void sim_smi_release(struct kfdsim *sim)
{
	for (unsigned i = 0; i < KFDSIM_MAX_GPUS; i++) {
		while (sim->smi[i]) {
			struct sim_smi_client *c = sim->smi[i];

			sim->smi[i] = c->next;
			free_client(c);
		}
	}
}
