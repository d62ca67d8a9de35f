/* SPDX-License-Identifier: BSD-3-Clause */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>
#include <linux/virtio_net_roce.h>

#include "fake_backend.h"
#include "negotiate.h"
#include "vhost_user_msg.h"

#define CTRL_VQ 2

void
fake_init(struct fake_backend *f)
{
	struct virtio_net_roce_config cfg = {
		.mac = { 0x52, 0x54, 0x00, 0x5e, 0x00, 0x02 },
		.status = htole16(VIRTIO_NET_S_LINK_UP),
		.mtu = htole16(1500),
		.max_rdma_qps = htole32(3),
		.max_rdma_cqs = htole32(1),
		.roce_port_speed = htole64(250),
	};
	unsigned int i;

	memset(f, 0, sizeof(*f));
	f->features = VUSER_BIT(VIRTIO_F_VERSION_1) | VUSER_BIT(VIRTIO_RING_F_EVENT_IDX) |
			VUSER_BIT(VIRTIO_NET_F_CTRL_VQ) | VUSER_BIT(VIRTIO_NET_F_MAC) |
			VUSER_BIT(VIRTIO_NET_F_STATUS) | VUSER_BIT(VIRTIO_NET_F_MTU) |
			VUSER_BIT(VIRTIO_NET_F_ROCE) | VUSER_BIT(VIRTIO_NET_F_ROCE_PORT_SPEED) |
			VUSER_BIT(VHOST_USER_F_PROTOCOL_FEATURES);
	f->protocol_features = VUSER_BIT(VHOST_USER_PROTOCOL_F_MQ) |
			VUSER_BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK) |
			VUSER_BIT(VHOST_USER_PROTOCOL_F_BACKEND_REQ) |
			VUSER_BIT(VHOST_USER_PROTOCOL_F_CONFIG);
	memcpy(f->config, &cfg, sizeof(cfg));
	f->config_len = sizeof(cfg);
	f->listen_fd = f->conn_fd = f->stop_fd = f->backend_req_fd = -1;
	f->create_qpn = 2;
	for (i = 0; i < FAKE_MAX_VQS; i++)
		f->vq[i].kick_fd = f->vq[i].call_fd = -1;
}

/* The fake's own address of a frontend (hva) or driver (gpa) address. */
static void *
from_uaddr(struct fake_backend *f, uint64_t uaddr)
{
	return f->map + (uaddr - f->mem_uaddr);
}

static void *
from_gpa(struct fake_backend *f, uint64_t gpa, uint32_t len)
{
	if (gpa < f->mem_gpa || gpa + len > f->mem_gpa + f->mem_size)
		return NULL;
	return f->map + (gpa - f->mem_gpa);
}

static void
send_reply(struct fake_backend *f, struct vuser_msg *msg, uint32_t size)
{
	msg->flags = VHOST_USER_VERSION | VHOST_USER_REPLY;
	msg->size = size;
	vuser_msg_send(f->conn_fd, msg, NULL, 0);
}

/* The answers with content: ack data of QUERY_PORT_SPEED and CREATE_*, and the counts. */
static void
answer(struct fake_backend *f, uint8_t *ack_data, uint32_t ack_len)
{
	const struct virtio_net_roce_config *cfg = (const void *)f->config;
	struct virtio_rdma_ack_query_port_speed qps = { .speed = cfg->roce_port_speed };
	uint32_t n;

	if (f->last_cmd[0] == VIRTIO_NET_CTRL_ANNOUNCE &&
			f->last_cmd[1] == VIRTIO_NET_CTRL_ANNOUNCE_ACK)
		f->n_announce_acks++;
	if (f->last_cmd[0] != VIRTIO_NET_CTRL_ROCE || ack_data == NULL)
		return;
	switch (f->last_cmd[1]) {
	case VIRTIO_NET_CTRL_ROCE_QUERY_PORT_SPEED:
		f->n_speed_queries++;
		if (ack_len >= sizeof(qps))
			memcpy(ack_data, &qps, sizeof(qps));
		break;
	case VIRTIO_NET_CTRL_ROCE_CREATE_CQ:
	case VIRTIO_NET_CTRL_ROCE_CREATE_QP:
		n = htole32(f->last_cmd[1] == VIRTIO_NET_CTRL_ROCE_CREATE_CQ ? f->create_cqn
									     : f->create_qpn);
		if (ack_len >= sizeof(n))
			memcpy(ack_data, &n, sizeof(n));
		break;
	default:
		break;
	}
}

/* Use one chain of the control queue, as the fault mode says. */
static void
use_chain(struct fake_backend *f, struct fake_vq *vq, uint16_t head)
{
	struct vring_desc *desc = from_uaddr(f, vq->desc);
	struct vring_used *used = from_uaddr(f, vq->used);
	uint32_t out = 0, in = 0, written = 0, n = 0, id = head, ack_len = 0;
	uint16_t d = head, flags, used_idx;
	uint8_t *p, *ack = NULL, *ack_data = NULL;
	uint32_t len;

	do {
		len = le32toh(desc[d].len);
		flags = le16toh(desc[d].flags);
		p = from_gpa(f, le64toh(desc[d].addr), len);
		if (p == NULL)
			return;
		if (!(flags & VRING_DESC_F_WRITE)) {
			if (out == 0 && len >= 2)
				memcpy(f->last_cmd, p, 2);
			else if (out >= 2 && len <= sizeof(f->last_data))
				memcpy(f->last_data, p, len);
			out += len;
		} else {
			if (ack == NULL) {
				ack = p;
			} else {
				memset(p, 0xa5, len);
				if (ack_data == NULL) {
					ack_data = p;
					ack_len = len;
				}
			}
			in += len;
		}
		d = le16toh(desc[d].next);
	} while ((flags & VRING_DESC_F_NEXT) && ++n < vq->num);
	f->last_out_len = out;
	f->last_in_len = in;
	if (f->ctrl != FAKE_CTRL_ERR)
		answer(f, ack_data, ack_len);
	if (ack != NULL)
		*ack = f->ctrl == FAKE_CTRL_ERR ? VIRTIO_NET_ERR : VIRTIO_NET_OK;
	written = f->ctrl == FAKE_CTRL_ERR ? 1 : in;
	if (f->ctrl == FAKE_CTRL_TOO_LONG)
		written = in + 1;
	if (f->ctrl == FAKE_CTRL_BAD_ID)
		id = vq->num + 1;

	used_idx = le16toh(used->idx);
	used->ring[used_idx % vq->num].id = htole32(id);
	used->ring[used_idx % vq->num].len = htole32(written);
	__atomic_store_n(&used->idx, htole16(used_idx + 1), __ATOMIC_RELEASE);
}

int
fake_vq_next(struct fake_backend *f, uint32_t index, struct fake_chain *c)
{
	struct fake_vq *vq = &f->vq[index % FAKE_MAX_VQS];
	struct vring_desc *desc = from_uaddr(f, vq->desc);
	struct vring_avail *avail = from_uaddr(f, vq->avail);
	uint16_t d, flags;

	if (vq->last_avail == le16toh(__atomic_load_n(&avail->idx, __ATOMIC_ACQUIRE)))
		return 0;
	c->head = d = le16toh(avail->ring[vq->last_avail++ % vq->num]);
	c->flags = le16toh(desc[d].flags);
	c->len = le32toh(desc[d].len);
	c->buf = from_gpa(f, le64toh(desc[d].addr), c->len);
	c->n_desc = 1;
	for (flags = c->flags; (flags & VRING_DESC_F_NEXT) && c->n_desc < vq->num; c->n_desc++) {
		d = le16toh(desc[d].next) % vq->num;
		flags = le16toh(desc[d].flags);
	}
	return 1;
}

void
fake_vq_use(struct fake_backend *f, uint32_t index, uint16_t head, uint32_t len)
{
	struct fake_vq *vq = &f->vq[index % FAKE_MAX_VQS];
	struct vring_used *used = from_uaddr(f, vq->used);
	uint16_t idx = le16toh(used->idx);

	used->ring[idx % vq->num].id = htole32(head);
	used->ring[idx % vq->num].len = htole32(len);
	__atomic_store_n(&used->idx, htole16(idx + 1), __ATOMIC_RELEASE);
}

uint16_t
fake_vq_avail_idx(struct fake_backend *f, uint32_t index)
{
	struct vring_avail *avail = from_uaddr(f, f->vq[index % FAKE_MAX_VQS].avail);

	return le16toh(__atomic_load_n(&avail->idx, __ATOMIC_ACQUIRE));
}

static void
serve_ctrl(struct fake_backend *f)
{
	struct fake_vq *vq = &f->vq[CTRL_VQ];
	struct vring_avail *avail = from_uaddr(f, vq->avail);
	struct vring_used *used = from_uaddr(f, vq->used);
	uint64_t count;
	uint16_t idx;
	uint32_t i;

	if (read(vq->kick_fd, &count, sizeof(count)) < 0)
		return;
	idx = le16toh(__atomic_load_n(&avail->idx, __ATOMIC_ACQUIRE));
	for (; vq->last_avail != idx; vq->last_avail++) {
		if (f->n_pending < 8)
			f->pending_heads[f->n_pending++] =
					le16toh(avail->ring[vq->last_avail % vq->num]);
	}
	/* With EVENT_IDX the driver kicks again only past avail_event (virtio 2.7.10). */
	if (f->acked_features & VUSER_BIT(VIRTIO_RING_F_EVENT_IDX))
		__atomic_store_n((uint16_t *)&used->ring[vq->num], htole16(vq->last_avail),
				__ATOMIC_RELEASE);
	/* LATE: keep the first command until a second one arrives. */
	if (f->ctrl == FAKE_CTRL_SILENT || (f->ctrl == FAKE_CTRL_LATE && f->n_pending < 2))
		return;
	/* Answer once the driver waits for a notification that will not come. */
	if (f->ctrl == FAKE_CTRL_NO_NOTIFY)
		usleep(50 * 1000);
	for (i = 0; i < f->n_pending; i++)
		use_chain(f, vq, f->pending_heads[i]);
	f->n_pending = 0;
	if (f->ctrl != FAKE_CTRL_NO_NOTIFY && vq->call_fd >= 0) {
		count = 1;
		if (write(vq->call_fd, &count, sizeof(count)) < 0)
			perror("fake: call");
	}
}

static void
set_vring_fd(struct fake_backend *f, const struct vuser_msg *msg, int *fds, unsigned int n_fds)
{
	uint32_t idx = msg->payload.u64 & VHOST_USER_VRING_IDX_MASK;
	int *slot = msg->request == VHOST_USER_SET_VRING_KICK ? &f->vq[idx].kick_fd
							      : &f->vq[idx].call_fd;

	if (*slot >= 0)
		close(*slot);
	*slot = n_fds > 0 ? fds[0] : -1;
}

static void
set_mem_table(struct fake_backend *f, const struct vuser_msg *msg, int *fds, unsigned int n_fds)
{
	if (n_fds != 1)
		return;
	f->mem_gpa = msg->payload.memory.regions[0].guest_phys_addr;
	f->mem_size = msg->payload.memory.regions[0].memory_size;
	f->mem_uaddr = msg->payload.memory.regions[0].userspace_addr;
	f->map = mmap(NULL, f->mem_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	close(fds[0]);
}

/* Answer one request, or fail to as f->fault says. */
static void
handle(struct fake_backend *f, struct vuser_msg *msg, int *fds, unsigned int n_fds)
{
	uint32_t request = msg->request;
	bool need_ack = msg->flags & VHOST_USER_NEED_REPLY;
	uint32_t size, offset;

	if (request == f->fault_request && f->fault == FAKE_FAULT_SILENT) {
		while (n_fds > 0)
			close(fds[--n_fds]);
		return;
	}
	if (request == f->fault_request && f->fault == FAKE_FAULT_WRONG_REPLY)
		msg->request = request + 1;

	switch (request) {
	case VHOST_USER_GET_FEATURES:
		msg->payload.u64 = f->features;
		send_reply(f, msg, 8);
		return;
	case VHOST_USER_GET_PROTOCOL_FEATURES:
		msg->payload.u64 = f->protocol_features;
		send_reply(f, msg, 8);
		return;
	case VHOST_USER_GET_QUEUE_NUM:
		msg->payload.u64 = 128;
		send_reply(f, msg, 8);
		return;
	case VHOST_USER_GET_CONFIG:
		offset = msg->payload.config.offset;
		size = msg->payload.config.size;
		if (offset > f->config_len || size > f->config_len - offset)
			size = 0; /* the refusal */
		memcpy(msg->payload.config.region, f->config + (size ? offset : 0), size);
		msg->payload.config.size = size;
		send_reply(f, msg, VUSER_CONFIG_HDR_SIZE + size);
		return;
	case VHOST_USER_GET_VRING_BASE:
		f->n_get_base++;
		msg->payload.state.num = f->vq[msg->payload.state.index % FAKE_MAX_VQS].last_avail;
		send_reply(f, msg, sizeof(msg->payload.state));
		return;
	case VHOST_USER_SET_FEATURES:
		f->acked_features = msg->payload.u64;
		break;
	case VHOST_USER_SET_MEM_TABLE:
		set_mem_table(f, msg, fds, n_fds);
		n_fds = 0;
		break;
	case VHOST_USER_SET_BACKEND_REQ_FD:
		f->backend_req_fd = n_fds > 0 ? fds[0] : -1;
		n_fds = 0;
		break;
	case VHOST_USER_SET_VRING_NUM:
		f->vq[msg->payload.state.index % FAKE_MAX_VQS].num = msg->payload.state.num;
		break;
	case VHOST_USER_SET_VRING_ADDR:
		f->vq[msg->payload.addr.index % FAKE_MAX_VQS].desc =
				msg->payload.addr.desc_user_addr;
		f->vq[msg->payload.addr.index % FAKE_MAX_VQS].avail =
				msg->payload.addr.avail_user_addr;
		f->vq[msg->payload.addr.index % FAKE_MAX_VQS].used =
				msg->payload.addr.used_user_addr;
		break;
	case VHOST_USER_SET_VRING_KICK:
	case VHOST_USER_SET_VRING_CALL:
		set_vring_fd(f, msg, fds, n_fds);
		n_fds = 0;
		break;
	case VHOST_USER_SET_VRING_ENABLE:
		f->vq[msg->payload.state.index % FAKE_MAX_VQS].enabled = msg->payload.state.num;
		f->n_enabled++;
		break;
	default:
		break;
	}
	while (n_fds > 0)
		close(fds[--n_fds]);
	if (need_ack) {
		msg->payload.u64 = request == f->fault_request && f->fault == FAKE_FAULT_NACK;
		send_reply(f, msg, 8);
	}
}

static void *
serve(void *arg)
{
	struct fake_backend *f = arg;
	struct pollfd pfd[3];
	int fds[VHOST_USER_MAX_FDS];
	struct vuser_msg msg;
	unsigned int n_fds;
	const char *why;

	pfd[0] = (struct pollfd){ .fd = f->listen_fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = f->stop_fd, .events = POLLIN };
	if (poll(pfd, 2, -1) <= 0 || (pfd[1].revents & POLLIN))
		return NULL;
	f->conn_fd = accept4(f->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	for (;;) {
		pfd[0] = (struct pollfd){ .fd = f->conn_fd, .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = f->vq[CTRL_VQ].kick_fd, .events = POLLIN };
		if (poll(pfd, 3, -1) < 0 || (pfd[1].revents & POLLIN))
			break;
		if (pfd[2].revents & POLLIN)
			serve_ctrl(f);
		if (!(pfd[0].revents & (POLLIN | POLLHUP)))
			continue;
		if (vuser_msg_recv(f->conn_fd, 1000, &msg, fds, VHOST_USER_MAX_FDS, &n_fds, &why) <
				0)
			break;
		handle(f, &msg, fds, n_fds);
	}
	return NULL;
}

int
fake_start(struct fake_backend *f)
{
	static int serial;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	snprintf(f->path, sizeof(f->path), "/tmp/vur-user-fake-%d-%d", (int)getpid(), serial++);
	unlink(f->path);
	strcpy(sa.sun_path, f->path);
	f->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	f->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (f->listen_fd < 0 || f->stop_fd < 0 ||
			bind(f->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
			listen(f->listen_fd, 1) < 0)
		return -errno;
	return -pthread_create(&f->thread, NULL, serve, f);
}

void
fake_stop(struct fake_backend *f)
{
	uint64_t one = 1;
	unsigned int i;

	/* A connection that already ended lets the thread go; this ends the others. */
	if (write(f->stop_fd, &one, sizeof(one)) < 0)
		perror("fake: stop");
	pthread_join(f->thread, NULL);
	for (i = 0; i < FAKE_MAX_VQS; i++) {
		if (f->vq[i].kick_fd >= 0)
			close(f->vq[i].kick_fd);
		if (f->vq[i].call_fd >= 0)
			close(f->vq[i].call_fd);
	}
	if (f->map != NULL)
		munmap(f->map, f->mem_size);
	if (f->backend_req_fd >= 0)
		close(f->backend_req_fd);
	if (f->conn_fd >= 0)
		close(f->conn_fd);
	close(f->listen_fd);
	close(f->stop_fd);
	unlink(f->path);
}

int
fake_backend_send(struct fake_backend *f, uint32_t request, bool need_reply)
{
	struct vuser_msg msg = { .request = request, .flags = VHOST_USER_VERSION };

	if (need_reply)
		msg.flags |= VHOST_USER_NEED_REPLY;
	return vuser_msg_send(f->backend_req_fd, &msg, NULL, 0);
}

int
fake_backend_ack(struct fake_backend *f, uint32_t request, uint64_t *ack, int timeout_ms)
{
	struct vuser_msg msg;
	const char *why;
	unsigned int n_fds;
	int ret;

	ret = vuser_msg_recv(f->backend_req_fd, timeout_ms, &msg, NULL, 0, &n_fds, &why);
	if (ret == 0)
		ret = vuser_msg_check_reply(&msg, request, 8, &why);
	if (ret == 0)
		*ack = msg.payload.u64;
	return ret;
}
