// SPDX-License-Identifier: GPL-2.0
/*
 * A self-test of the kernel verbs of one RDMA device, for the guest
 * scenarios (qemu-test/tests/scenario10_virtio_rdma.py): not part of the
 * driver. Loaded with ibdev=NAME, it runs once at load (its ib_client's
 * add for that device) and prints one line per case, "virtio_rdma_kvtest:
 * RESULT <case> ok|fail <detail>", which the guest script turns into its
 * results; the module then stays loaded doing nothing until removed.
 *
 * What it does is what the virtqueue layout cannot, nor kernel rings of
 * one contiguous allocation (4096 WRs): a CQ of 16384 CQEs and two RC QPs
 * of 16384 WRs each, connected to each other on the device (loopback
 * through the port's own GID and MAC). 5000 receives are posted, then
 * 5000 SENDs of 64 bytes in one post_send call, every one signaled, so
 * more than 4096 WRs are outstanding on each ring at once (a send ring of
 * 16 MiB: vmalloc memory in an MR of its own); the CQ is polled only once
 * all 10000 CQEs can have come, so it holds more than 1024 of them. Each
 * message carries its own pattern, checked in its receive buffer, in the
 * order posted. Then the same over a shared receive queue of 16384 WRs
 * at the device's s/g limit (its ring too in an MR of its own) with its
 * limit armed (the limit event must come), and ib_drain_qp() on every QP
 * (the flush of a receive posted to a QP in ERR). Then a CQ of 16
 * overrun by 64 SENDs: its CQ error and its QP's fatal error, once each.
 * Last, ib_resize_cq() of a CQ on rings with CQEs pending across the
 * switch to the new ring (kv_resize(); on 7.2, which has no
 * ib_resize_cq(), the driver's op itself).
 *
 * With lost=1 it runs instead the creates a device does not answer: a PD
 * and a CQ, "lost: ready", then for each go=N the script writes (after the
 * host stopped the backend) one create that times out (the driver's
 * ctrl_timeout_ms, lowered by the script): N = 1 a QP, 2 an SRQ, 3 a CQ,
 * all on rings, each reported with its error and "lost: N done". The
 * driver must keep their rings until the device is reset ("create ...,
 * kept until reset"): the backend, once it runs again, creates them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#define KV_CQE		16384
#define KV_WR		16384
#define KV_MSGS		5000
#define KV_MSG_BYTES	64
#define KV_SRQ_LIMIT	100
#define KV_WAIT_MS	5000

static char *ibdev = "";
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "the RDMA device to test");

static bool lost;
module_param(lost, bool, 0444);
MODULE_PARM_DESC(lost, "instead: creates the device does not answer, one per go");

static int go;
module_param(go, int, 0644);
MODULE_PARM_DESC(go, "lost=1: the next create (1 QP, 2 SRQ, 3 CQ)");

struct kvtest {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_srq *srq;
	struct ib_qp *qa, *qb;
	u8 *buf;		/* send buffers, then receive buffers */
	size_t buf_len;
	u64 dma;
	struct ib_wc *wc;
	bool limit_event;
	atomic_t cq_err;	/* IB_EVENT_CQ_ERR seen */
	atomic_t qp_fatal;	/* IB_EVENT_QP_FATAL seen */
	int gid_index;
	union ib_gid gid;
	u8 mac[ETH_ALEN];
};

static void result(const char *name, bool ok, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("RESULT %s %s %pV\n", name, ok ? "ok" : "fail", &vaf);
	va_end(args);
}

static u8 pattern(u32 msg, u32 byte)
{
	return (u8)(msg * 2654435761u + byte * 31u + 7u);
}

static void kv_event(struct ib_event *ev, void *ctx)
{
	struct kvtest *t = ctx;

	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		WRITE_ONCE(t->limit_event, true);
	if (ev->event == IB_EVENT_CQ_ERR)
		atomic_inc(&t->cq_err);
	if (ev->event == IB_EVENT_QP_FATAL)
		atomic_inc(&t->qp_fatal);
}

/* The first RoCE v2 GID of port 1 and the MAC of its netdev. */
static int kv_gid(struct kvtest *t)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	int i;

	for (i = 0; i < t->dev->port_data[1].immutable.gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(t->dev, 1, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
			rdma_put_gid_attr(attr);
			continue;
		}
		rcu_read_lock();
		ndev = rdma_read_gid_attr_ndev_rcu(attr);
		if (!IS_ERR(ndev))
			ether_addr_copy(t->mac, ndev->dev_addr);
		rcu_read_unlock();
		t->gid = attr->gid;
		t->gid_index = i;
		rdma_put_gid_attr(attr);
		return IS_ERR(ndev) ? PTR_ERR(ndev) : 0;
	}
	return -ENOENT;
}

static struct ib_qp *kv_qp(struct kvtest *t, struct ib_srq *srq,
			   struct ib_cq *send_cq)
{
	struct ib_qp_init_attr init = {
		.event_handler = kv_event,
		.qp_context = t,
		.send_cq = send_cq,
		.recv_cq = t->cq,
		.srq = srq,
		.cap = {
			.max_send_wr = KV_WR,
			.max_recv_wr = srq ? 0 : KV_WR,
			.max_send_sge = 1,
			.max_recv_sge = srq ? 0 : 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	return ib_create_qp(t->pd, &init);
}

/* RESET -> INIT -> RTR -> RTS, connected to @dest on this device. */
static int kv_connect(struct kvtest *t, struct ib_qp *qp, u32 dest)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE,
	};
	int ret;

	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, &t->gid, 0, t->gid_index, 64, 0);
	ether_addr_copy(a.ah_attr.roce.dmac, t->mac);
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

static u64 kv_addr(struct kvtest *t, bool recv, u32 i)
{
	return t->dma + (recv ? (size_t)KV_MSGS * KV_MSG_BYTES : 0) +
	       (size_t)i * KV_MSG_BYTES;
}

static int kv_post_recvs(struct kvtest *t, struct ib_qp *qp,
			 struct ib_srq *srq, u32 from, u32 n)
{
	const struct ib_recv_wr *bad;
	struct ib_recv_wr *wr;
	struct ib_sge *sge;
	int ret;
	u32 i;

	wr = kvcalloc(n, sizeof(*wr), GFP_KERNEL);
	sge = kvcalloc(n, sizeof(*sge), GFP_KERNEL);
	ret = wr && sge ? 0 : -ENOMEM;
	for (i = 0; !ret && i < n; i++) {
		sge[i].addr = kv_addr(t, true, from + i);
		sge[i].length = KV_MSG_BYTES;
		sge[i].lkey = t->pd->local_dma_lkey;
		wr[i].wr_id = KV_MSGS + from + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	if (!ret)
		ret = srq ? ib_post_srq_recv(srq, wr, &bad) :
			    ib_post_recv(qp, wr, &bad);
	kvfree(sge);
	kvfree(wr);
	return ret;
}

/* All @n SENDs in one call: the ring takes more than 4096 at once. */
static int kv_post_sends(struct kvtest *t, struct ib_qp *qp, u32 from, u32 n)
{
	const struct ib_send_wr *bad;
	struct ib_send_wr *wr;
	struct ib_sge *sge;
	int ret;
	u32 i;

	wr = kvcalloc(n, sizeof(*wr), GFP_KERNEL);
	sge = kvcalloc(n, sizeof(*sge), GFP_KERNEL);
	ret = wr && sge ? 0 : -ENOMEM;
	for (i = 0; !ret && i < n; i++) {
		sge[i].addr = kv_addr(t, false, from + i);
		sge[i].length = KV_MSG_BYTES;
		sge[i].lkey = t->pd->local_dma_lkey;
		wr[i].wr_id = from + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IB_WR_SEND;
		wr[i].send_flags = IB_SEND_SIGNALED;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	if (!ret)
		ret = ib_post_send(qp, wr, &bad);
	kvfree(sge);
	kvfree(wr);
	return ret;
}

/*
 * One round: KV_MSGS messages qa -> qb (its receives on @srq if any), the
 * CQ polled once they have all had time to complete; their data checked.
 */
static void kv_round(struct kvtest *t, const char *name, struct ib_srq *srq)
{
	u32 sends = 0, recvs = 0, first = 0, bad = 0, i, j;
	unsigned long deadline;
	u8 *rbuf = t->buf + (size_t)KV_MSGS * KV_MSG_BYTES;
	int n, ret;

	memset(rbuf, 0, (size_t)KV_MSGS * KV_MSG_BYTES);
	ib_dma_sync_single_for_device(t->dev, t->dma, t->buf_len,
				      DMA_BIDIRECTIONAL);
	ret = kv_post_recvs(t, t->qb, srq, 0, KV_MSGS);
	if (!ret && srq) {
		struct ib_srq_attr sa = { .srq_limit = KV_SRQ_LIMIT };

		WRITE_ONCE(t->limit_event, false);
		ret = ib_modify_srq(srq, &sa, IB_SRQ_LIMIT);
	}
	if (!ret)
		ret = kv_post_sends(t, t->qa, 0, KV_MSGS);
	if (ret) {
		result(name, false, "post: %d", ret);
		return;
	}
	/* A CQ of 1024 would have overrun by now. */
	msleep(2000);
	deadline = jiffies + msecs_to_jiffies(KV_WAIT_MS);
	while (sends + recvs < 2 * KV_MSGS && time_before(jiffies, deadline)) {
		n = ib_poll_cq(t->cq, KV_CQE, t->wc);
		if (n < 0) {
			result(name, false, "poll_cq %d", n);
			return;
		}
		if (!first)
			first = n;
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &t->wc[i];

			if (wc->status != IB_WC_SUCCESS) {
				bad++;
			} else if (wc->opcode == IB_WC_SEND) {
				bad += wc->wr_id != sends++;
			} else if (wc->opcode == IB_WC_RECV) {
				/* An SRQ's WRs, too, are taken in order here. */
				bad += wc->wr_id != KV_MSGS + recvs++ ||
				       wc->byte_len != KV_MSG_BYTES;
			} else {
				bad++;
			}
		}
		if (!n)
			msleep(10);
	}
	ib_dma_sync_single_for_cpu(t->dev, t->dma, t->buf_len,
				   DMA_BIDIRECTIONAL);
	for (i = 0; i < recvs; i++)
		for (j = 0; j < KV_MSG_BYTES; j++)
			bad += rbuf[(size_t)i * KV_MSG_BYTES + j] != pattern(i, j);
	result(name, sends == KV_MSGS && recvs == KV_MSGS && !bad &&
	       first > 1024,
	       "%u sends, %u receives of %u outstanding at once, %u CQEs held at once, %u bad",
	       sends, recvs, KV_MSGS, first, bad);
	if (srq)
		result("srq_limit_event", READ_ONCE(t->limit_event),
		       "limit %u", KV_SRQ_LIMIT);
}

static int kv_setup(struct kvtest *t)
{
	struct ib_srq_init_attr sinit = {
		.event_handler = kv_event,
		.srq_context = t,
		/* At the s/g limit: a ring of 8 MiB with 16, in an MR. */
		.attr = { .max_wr = KV_WR,
			  .max_sge = min(t->dev->attrs.max_srq_sge, 16) },
		.srq_type = IB_SRQT_BASIC,
	};
	u32 i, j;
	int ret;

	ret = kv_gid(t);
	if (ret)
		return ret;
	t->pd = ib_alloc_pd(t->dev, 0);
	if (IS_ERR(t->pd))
		return PTR_ERR(t->pd);
	t->cq = ib_alloc_cq(t->dev, NULL, KV_CQE, 0, IB_POLL_DIRECT);
	if (IS_ERR(t->cq))
		return PTR_ERR(t->cq);
	result("cq_16384", t->cq->cqe >= KV_CQE, "cqe %d", t->cq->cqe);
	t->wc = kvcalloc(KV_CQE, sizeof(*t->wc), GFP_KERNEL);
	t->buf_len = 2 * (size_t)KV_MSGS * KV_MSG_BYTES;
	t->buf = kmalloc(t->buf_len, GFP_KERNEL);
	if (!t->wc || !t->buf)
		return -ENOMEM;
	for (i = 0; i < KV_MSGS; i++)
		for (j = 0; j < KV_MSG_BYTES; j++)
			t->buf[(size_t)i * KV_MSG_BYTES + j] = pattern(i, j);
	t->dma = ib_dma_map_single(t->dev, t->buf, t->buf_len,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(t->dev, t->dma)) {
		t->dma = 0;
		return -ENOMEM;
	}
	t->srq = ib_create_srq(t->pd, &sinit);
	if (IS_ERR(t->srq)) {
		result("srq_16384", false, "create_srq %ld", PTR_ERR(t->srq));
		t->srq = NULL;
	}
	return 0;
}

/*
 * Two QPs of KV_WR WRs, qb on @srq if any, connected to each other; qa
 * sends to @send_cq, all else goes to t->cq.
 */
static int kv_pair(struct kvtest *t, struct ib_srq *srq,
		   struct ib_cq *send_cq)
{
	int ret;

	t->qa = kv_qp(t, NULL, send_cq);
	if (IS_ERR(t->qa)) {
		ret = PTR_ERR(t->qa);
		t->qa = NULL;
		return ret;
	}
	t->qb = kv_qp(t, srq, t->cq);
	if (IS_ERR(t->qb)) {
		ret = PTR_ERR(t->qb);
		t->qb = NULL;
		return ret;
	}
	ret = kv_connect(t, t->qa, t->qb->qp_num);
	return ret ? ret : kv_connect(t, t->qb, t->qa->qp_num);
}

/* ib_drain_qp() needs the device's flushes; it warns if they never come. */
static void kv_unpair(struct kvtest *t, const char *name)
{
	if (t->qa && t->qb) {
		ib_drain_qp(t->qa);
		ib_drain_qp(t->qb);
		result(name, true, "QPs %u, %u", t->qa->qp_num, t->qb->qp_num);
	}
	if (t->qb)
		ib_destroy_qp(t->qb);
	if (t->qa)
		ib_destroy_qp(t->qa);
	t->qa = t->qb = NULL;
}

static void kv_teardown(struct kvtest *t)
{
	if (t->srq)
		ib_destroy_srq(t->srq);
	if (t->dma)
		ib_dma_unmap_single(t->dev, t->dma, t->buf_len,
				    DMA_BIDIRECTIONAL);
	kfree(t->buf);
	kvfree(t->wc);
	if (!IS_ERR_OR_NULL(t->cq))
		ib_free_cq(t->cq);
	if (!IS_ERR_OR_NULL(t->pd))
		ib_dealloc_pd(t->pd);
}

/*
 * A send CQ of 16 CQEs, 64 signaled SENDs: it overruns. The device reports
 * CQ_ERR; the driver raises IB_EVENT_CQ_ERR and IB_EVENT_QP_FATAL for the
 * one QP that sends to it (ROCE-DRV-OVR-2, -3), each once. No drain: the
 * flushes of a QP whose CQ is in error are lost.
 */
#define KV_SMALL_CQE	16
#define KV_OVERRUN_MSGS	64

static void kv_overrun(struct kvtest *t)
{
	struct ib_cq_init_attr ca = { .cqe = KV_SMALL_CQE };
	unsigned long deadline;
	struct ib_cq *cq;
	int ret, n;

	cq = ib_create_cq(t->dev, NULL, kv_event, t, &ca);
	if (IS_ERR(cq)) {
		result("cq_overrun_qp_fatal", false, "create_cq %ld",
		       PTR_ERR(cq));
		return;
	}
	atomic_set(&t->cq_err, 0);
	atomic_set(&t->qp_fatal, 0);
	ret = kv_pair(t, NULL, cq);
	if (!ret)
		ret = kv_post_recvs(t, t->qb, NULL, 0, KV_OVERRUN_MSGS);
	if (!ret)
		ret = kv_post_sends(t, t->qa, 0, KV_OVERRUN_MSGS);
	deadline = jiffies + msecs_to_jiffies(KV_WAIT_MS);
	while (!ret && (!atomic_read(&t->cq_err) || !atomic_read(&t->qp_fatal)) &&
	       time_before(jiffies, deadline))
		msleep(10);
	msleep(200);	/* a second event would come within this */
	result("cq_overrun_qp_fatal", !ret && atomic_read(&t->cq_err) == 1 &&
	       atomic_read(&t->qp_fatal) == 1,
	       "%d: %d CQ_ERR, %d QP_FATAL", ret, atomic_read(&t->cq_err),
	       atomic_read(&t->qp_fatal));
	if (t->qb)
		ib_destroy_qp(t->qb);
	if (t->qa)
		ib_destroy_qp(t->qa);
	t->qa = t->qb = NULL;
	/* What qb received: not for a later round. */
	do {
		n = ib_poll_cq(t->cq, KV_CQE, t->wc);
	} while (n > 0);
	ib_destroy_cq(cq);
}

/*
 * ib_resize_cq() of a kernel CQ on rings (RESIZE_CQ, issue 29): a CQ of
 * KV_RS_CQE under both QPs, KV_RS_P1 messages (twice the CQEs), some
 * polled; grown with the rest pending in the old ring, KV_RS_P2 more
 * messages (more CQEs pending than the old ring has entries); a shrink
 * below them refused with the CQ as it was; all polled in order with
 * their data; a shrink with nothing pending, KV_RS_P3 more through it.
 */
#define KV_RS_CQE	256
#define KV_RS_P1	100
#define KV_RS_POLL1	50
#define KV_RS_GROW	1024
#define KV_RS_P2	200
#define KV_RS_TOO_SMALL	100
#define KV_RS_SHRINK	64
#define KV_RS_P3	20

/*
 * 7.2 has no ib_resize_cq() (ib_core resizes only processes' CQs, through
 * resize_user_cq): the op is called as 6.1's ib_resize_cq() calls its
 * resize_cq, with no udata, which the driver takes as a kernel CQ's.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
static int kv_resize_cq(struct ib_cq *cq, int cqe)
{
	return cq->device->ops.resize_user_cq ?
	       cq->device->ops.resize_user_cq(cq, cqe, NULL) : -EOPNOTSUPP;
}
#else
#define kv_resize_cq ib_resize_cq
#endif

struct kv_rs {
	u32 sends, recvs, bad;
};

/* @want CQEs of @cq, each checked in order, or KV_WAIT_MS gone. */
static int kv_rs_poll(struct kvtest *t, struct ib_cq *cq, struct kv_rs *r,
		      u32 want)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(KV_WAIT_MS);
	u32 got = 0, i;
	int n;

	while (got < want && time_before(jiffies, deadline)) {
		n = ib_poll_cq(cq, min_t(u32, want - got, KV_CQE), t->wc);
		if (n < 0)
			return n;
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &t->wc[i];

			if (wc->status != IB_WC_SUCCESS)
				r->bad++;
			else if (wc->opcode == IB_WC_SEND)
				r->bad += wc->wr_id != r->sends++;
			else if (wc->opcode == IB_WC_RECV)
				r->bad += wc->wr_id != KV_MSGS + r->recvs++ ||
					  wc->byte_len != KV_MSG_BYTES;
			else
				r->bad++;
		}
		got += n;
		if (!n)
			msleep(10);
	}
	return got == want ? 0 : -ETIMEDOUT;
}

/* Messages @from..@from + @n - 1 qa -> qb, then time for their CQEs. */
static int kv_rs_send(struct kvtest *t, u32 from, u32 n)
{
	int ret = kv_post_sends(t, t->qa, from, n);

	msleep(1000);
	return ret;
}

static void kv_resize(struct kvtest *t)
{
	u32 total = KV_RS_P1 + KV_RS_P2 + KV_RS_P3, i, j;
	u8 *rbuf = t->buf + (size_t)KV_MSGS * KV_MSG_BYTES;
	int grow = -1, small = -1, shrink = -1, ret;
	struct ib_cq *cq, *big = t->cq;
	int cqe[4] = {};
	struct kv_rs r = {};

	cq = ib_alloc_cq(t->dev, NULL, KV_RS_CQE, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq)) {
		result("resize_cq", false, "alloc_cq %ld", PTR_ERR(cq));
		return;
	}
	cqe[0] = cq->cqe;
	memset(rbuf, 0, (size_t)total * KV_MSG_BYTES);
	ib_dma_sync_single_for_device(t->dev, t->dma, t->buf_len,
				      DMA_BIDIRECTIONAL);
	t->cq = cq;	/* both QPs' CQ */
	ret = kv_pair(t, NULL, cq);
	if (!ret)
		ret = kv_post_recvs(t, t->qb, NULL, 0, total);
	if (!ret)
		ret = kv_rs_send(t, 0, KV_RS_P1);
	if (!ret)
		ret = kv_rs_poll(t, cq, &r, KV_RS_POLL1);
	if (!ret) {
		/* 150 CQEs pending across the switch */
		grow = kv_resize_cq(cq, KV_RS_GROW);
		cqe[1] = cq->cqe;
		ret = kv_rs_send(t, KV_RS_P1, KV_RS_P2);
	}
	if (!ret) {
		/* 550 pending: more than the first ring held */
		small = kv_resize_cq(cq, KV_RS_TOO_SMALL);
		cqe[2] = cq->cqe;
		ret = kv_rs_poll(t, cq, &r, 2 * (KV_RS_P1 + KV_RS_P2) -
					     KV_RS_POLL1);
	}
	if (!ret) {
		shrink = kv_resize_cq(cq, KV_RS_SHRINK);
		cqe[3] = cq->cqe;
		ret = kv_rs_send(t, KV_RS_P1 + KV_RS_P2, KV_RS_P3);
	}
	if (!ret)
		ret = kv_rs_poll(t, cq, &r, 2 * KV_RS_P3);
	ib_dma_sync_single_for_cpu(t->dev, t->dma, t->buf_len,
				   DMA_BIDIRECTIONAL);
	for (i = 0; i < r.recvs; i++)
		for (j = 0; j < KV_MSG_BYTES; j++)
			r.bad += rbuf[(size_t)i * KV_MSG_BYTES + j] != pattern(i, j);
	result("resize_cq", !ret && cqe[0] == KV_RS_CQE && !grow &&
	       cqe[1] == KV_RS_GROW && small == -EINVAL &&
	       cqe[2] == KV_RS_GROW && !shrink && cqe[3] == KV_RS_SHRINK &&
	       r.sends == total && r.recvs == total && !r.bad,
	       "%d: cqe %d, grown to %d: %d (cqe %d), to %d with %u pending: %d (cqe %d), to %d: %d (cqe %d); %u sends, %u receives in order, %u bad",
	       ret, cqe[0], KV_RS_GROW, grow, cqe[1], KV_RS_TOO_SMALL,
	       2 * (KV_RS_P1 + KV_RS_P2) - KV_RS_POLL1, small, cqe[2],
	       KV_RS_SHRINK, shrink, cqe[3], r.sends, r.recvs, r.bad);
	kv_unpair(t, "resize_cq_drain");
	t->cq = big;
	ib_free_cq(cq);
}

/*
 * Two QPs of KV_WR WRs (qb's receives on @srq if any), one round of
 * KV_MSGS messages, the drains: cases <@name>_qps, _sends and _drain.
 */
static void kv_case(struct kvtest *t, const char *name, struct ib_srq *srq)
{
	char c[32];
	int ret;

	ret = kv_pair(t, srq, t->cq);
	snprintf(c, sizeof(c), "%s_qps", name);
	result(c, !ret, "QPs %u, %u of %u WRs (max_qp_wr %d, max_srq_wr %d): %d",
	       t->qa ? t->qa->qp_num : 0, t->qb ? t->qb->qp_num : 0, KV_WR,
	       t->dev->attrs.max_qp_wr, t->dev->attrs.max_srq_wr, ret);
	snprintf(c, sizeof(c), "%s_sends", name);
	if (!ret)
		kv_round(t, c, srq);
	snprintf(c, sizeof(c), "%s_drain", name);
	kv_unpair(t, c);
}

static void kv_run(struct kvtest *t)
{
	int ret;

	ret = kv_setup(t);
	if (ret) {
		result("setup", false, "%d", ret);
		return;
	}
	kv_case(t, "rc", NULL);
	if (t->srq)
		kv_case(t, "srq", t->srq);
	kv_overrun(t);
	kv_resize(t);
}

#define KV_LOST_WAIT_MS	120000

/* Waits for go=@n (the script's, once the host stopped the backend). */
static bool kv_lost_go(int n)
{
	int i;

	for (i = 0; i < KV_LOST_WAIT_MS / 100 && READ_ONCE(go) != n; i++)
		msleep(100);
	if (READ_ONCE(go) == n)
		return true;
	result("lost_go", false, "no go=%d after %d ms", n, KV_LOST_WAIT_MS);
	return false;
}

/*
 * Create @n (1 a QP, 2 an SRQ, 3 a CQ) while the device does not answer:
 * it must fail with the driver's errors for a command without an answer.
 */
static void kv_lost_create(struct kvtest *t, int n)
{
	static const char * const names[] = {
		"lost_create_qp", "lost_create_srq", "lost_create_cq",
	};
	struct ib_srq_init_attr sinit = {
		.attr = { .max_wr = 64, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_qp_init_attr init = {
		.send_cq = t->cq,
		.recv_cq = t->cq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	void *obj;
	long err;

	if (n == 1)
		obj = ib_create_qp(t->pd, &init);
	else if (n == 2)
		obj = ib_create_srq(t->pd, &sinit);
	else
		obj = ib_alloc_cq(t->dev, NULL, 64, 0, IB_POLL_DIRECT);
	err = IS_ERR(obj) ? PTR_ERR(obj) : 0;
	result(names[n - 1], err == -ETIMEDOUT || err == -EBUSY || err == -EIO,
	       "%ld", err);
	if (!err && n == 1)
		ib_destroy_qp(obj);
	else if (!err && n == 2)
		ib_destroy_srq(obj);
	else if (!err)
		ib_free_cq(obj);
	pr_info("lost: %d done\n", n);
}

static void kv_lost(struct kvtest *t)
{
	int n;

	t->pd = ib_alloc_pd(t->dev, 0);
	if (IS_ERR(t->pd)) {
		result("lost_setup", false, "alloc_pd %ld", PTR_ERR(t->pd));
		return;
	}
	t->cq = ib_alloc_cq(t->dev, NULL, 64, 0, IB_POLL_DIRECT);
	if (IS_ERR(t->cq)) {
		result("lost_setup", false, "alloc_cq %ld", PTR_ERR(t->cq));
		return;
	}
	pr_info("lost: ready\n");
	for (n = 1; n <= 3 && kv_lost_go(n); n++)
		kv_lost_create(t, n);
}

static bool kv_found;

/* ib_core calls this for every registered device at ib_register_client(). */
static int kv_add(struct ib_device *dev)
{
	struct kvtest *t;

	if (strcmp(dev_name(&dev->dev), ibdev))
		return -EOPNOTSUPP;
	kv_found = true;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->dev = dev;
	if (lost)
		kv_lost(t);
	else
		kv_run(t);
	kv_teardown(t);
	kfree(t);
	pr_info("done\n");
	return -EOPNOTSUPP;	/* nothing to keep per device */
}

static void kv_remove(struct ib_device *dev, void *data)
{
}

static struct ib_client kv_client = {
	.name = "virtio_rdma_kvtest",
	.add = kv_add,
	.remove = kv_remove,
};

static int __init kvtest_init(void)
{
	int ret = ib_register_client(&kv_client);

	if (!ret && !kv_found)
		result("device", false, "no RDMA device %s", ibdev);
	return ret;
}

static void __exit kvtest_exit(void)
{
	ib_unregister_client(&kv_client);
}

module_init(kvtest_init);
module_exit(kvtest_exit);
MODULE_DESCRIPTION("Kernel verbs self-test of an RDMA device (test only)");
MODULE_LICENSE("GPL");
