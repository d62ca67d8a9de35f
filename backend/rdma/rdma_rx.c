/* SPDX-License-Identifier: BSD-3-Clause */
#include "rdma/rdma_rx.h"

void
vur_rdma_rx(struct vur_rdma_dev *rd, struct rte_mbuf **pkts, uint16_t n)
{
	(void)rd;
	/* No transport yet: a RoCE packet nobody can take is dropped (IBTA 9.6.1.1). */
	rte_pktmbuf_free_bulk(pkts, n);
}
