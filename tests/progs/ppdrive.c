// SPDX-License-Identifier: GPL-2.0
/*
 * ppdrive: drives the kernel's network page_pool from a busybox guest with
 * raw bpf(2), netlink and AF_PACKET: no libbpf, no iproute2, no clang.
 *
 *   ppdrive xdp IFNAME native|generic|off [--verdict drop|pass|tx] [--frags]
 *	load a two-instruction XDP program (r0 = verdict; exit) and attach it
 *	(RTM_SETLINK IFLA_XDP, driver or skb mode; it stays after exit), or
 *	detach whatever is attached; --frags loads it BPF_F_XDP_HAS_FRAGS
 *   ppdrive prog --verdict V [--frags]
 *	only load it (checks that bpf(2) takes it); prints the fd's prog id
 *   ppdrive testrun --verdict drop|pass|tx --frames N --batch B
 *		     [--repeat R] [--size S] [--ifindex I]
 *	BPF_PROG_TEST_RUN in live-frames mode: N frames in batches of B, one
 *	page_pool made and destroyed per syscall, R syscalls (default 1);
 *	ingress is loopback unless --ifindex
 *   ppdrive veth NAME PEER [--queues Q]
 *	create a veth pair with one rx and one tx queue per side (so one
 *	page_pool per side once XDP is attached natively), or Q of each
 *   ppdrive send IFNAME N SIZE [--cpu C]
 *	send N raw Ethernet frames of SIZE bytes (broadcast, ethertype
 *	0x88b5) from an AF_PACKET socket, pinned to CPU C if given
 *   ppdrive hold IFNAME N [--until FILE]
 *	AF_PACKET receiver (all protocols) that keeps what it receives queued,
 *	unread, with a receive buffer forced large enough for N page-sized
 *	skbs; prints "holding K" once N are queued, then waits for SIGTERM,
 *	SIGINT or FILE to appear; closing the socket frees them
 *   ppdrive pools
 *	the genetlink page-pool dump (NETDEV_CMD_PAGE_POOL_GET, 6.8+): one
 *	line per pool; lists only pools bound to a netdev
 *
 * Exit: 0 done, 1 the kernel refused (one line on stderr says what and
 * why, with netlink's extended ack where there is one), 2 usage, 3 this
 * kernel does not have the interface.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/genetlink.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PPD_ETHERTYPE 0x88b5	/* IEEE local experimental */

/* include/uapi/linux/netdev.h (6.8+), not in every libc's headers */
#define PPD_NETDEV_CMD_PAGE_POOL_GET 5
#define PPD_NETDEV_A_PAGE_POOL_ID 1
#define PPD_NETDEV_A_PAGE_POOL_IFINDEX 2
#define PPD_NETDEV_A_PAGE_POOL_NAPI_ID 3
#define PPD_NETDEV_A_PAGE_POOL_INFLIGHT 4
#define PPD_NETDEV_A_PAGE_POOL_INFLIGHT_MEM 5
#define PPD_NETDEV_A_PAGE_POOL_DETACH_TIME 6

#define EXIT_REFUSED 1
#define EXIT_USAGE 2
#define EXIT_MISSING 3

static void usage(void)
{
	fprintf(stderr,
		"usage: ppdrive xdp IFNAME native|generic|off [--verdict drop|pass|tx] [--frags]\n"
		"       ppdrive prog --verdict drop|pass|tx [--frags]\n"
		"       ppdrive testrun --verdict drop|pass|tx --frames N --batch B [--repeat R] [--size S] [--ifindex I]\n"
		"       ppdrive veth NAME PEER [--queues Q]\n"
		"       ppdrive send IFNAME N SIZE [--cpu C]\n"
		"       ppdrive hold IFNAME N [--until FILE]\n"
		"       ppdrive pools\n");
	exit(EXIT_USAGE);
}

static long num(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (!*s || *end || v < 0) {
		fprintf(stderr, "ppdrive: %s: not a number: '%s'\n", what, s);
		exit(EXIT_USAGE);
	}
	return v;
}

static int ifindex_of(const char *name)
{
	int i = if_nametoindex(name);

	if (!i) {
		fprintf(stderr, "ppdrive: no interface %s\n", name);
		exit(EXIT_REFUSED);
	}
	return i;
}

/* ---- BPF ---- */

static int verdict_of(const char *v)
{
	if (!strcmp(v, "drop"))
		return XDP_DROP;
	if (!strcmp(v, "pass"))
		return XDP_PASS;
	if (!strcmp(v, "tx"))
		return XDP_TX;
	fprintf(stderr, "ppdrive: verdict must be drop, pass or tx, not '%s'\n", v);
	exit(EXIT_USAGE);
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* r0 = verdict; exit */
static int load_xdp(int verdict, int frags)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = verdict },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static char log[4096];
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_XDP;
	attr.insns = (__u64)(unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (__u64)(unsigned long)"GPL";
	attr.log_buf = (__u64)(unsigned long)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	attr.prog_flags = frags ? BPF_F_XDP_HAS_FRAGS : 0;
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0 && errno == EINVAL && frags) {
		fprintf(stderr, "ppdrive: BPF_PROG_LOAD with BPF_F_XDP_HAS_FRAGS: %s (kernel without multi-buffer XDP?)\n",
			strerror(errno));
		exit(EXIT_MISSING);
	}
	if (fd < 0) {
		fprintf(stderr, "ppdrive: BPF_PROG_LOAD: %s%s%s\n", strerror(errno),
			log[0] ? ": " : "", log);
		exit(EXIT_REFUSED);
	}
	return fd;
}

static __u32 prog_id(int fd)
{
	struct bpf_prog_info info;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (__u64)(unsigned long)&info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) ? 0 : info.id;
}

/* ---- netlink ---- */

struct nlbuf {
	union {
		struct nlmsghdr h;
		char buf[4096];
	};
};

static struct rtattr *put_attr(struct nlmsghdr *h, int type, const void *data, int len)
{
	struct rtattr *a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
	return a;
}

static void put_u32(struct nlmsghdr *h, int type, __u32 v)
{
	put_attr(h, type, &v, sizeof(v));
}

static void put_str(struct nlmsghdr *h, int type, const char *s)
{
	put_attr(h, type, s, strlen(s) + 1);
}

static void end_nest(struct nlmsghdr *h, struct rtattr *nest)
{
	nest->rta_len = (char *)h + h->nlmsg_len - (char *)nest;
}

static int nl_open(int proto)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto), one = 1;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "ppdrive: netlink socket: %s\n", strerror(errno));
		exit(EXIT_REFUSED);
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return fd;
}

/* The extended ack's message, if the kernel sent one. */
static const char *ext_ack(const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	const char *p, *end = (const char *)h + h->nlmsg_len;
	const struct nlattr *a;

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	p = (const char *)e + sizeof(*e);
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		p += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	while (p + NLA_HDRLEN <= end) {
		a = (const struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
			return p + NLA_HDRLEN;
		p += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

/*
 * Send one request and wait for its ack; a reply of another type goes to
 * 'reply' if given. Returns 0 or -errno; 'why' gets the extended ack.
 */
static int nl_talk(int fd, struct nlmsghdr *req, struct nlbuf *reply, char *why, size_t whylen)
{
	static char buf[65536];
	struct nlmsghdr *h;
	ssize_t n;

	req->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	req->nlmsg_seq = 1;
	if (send(fd, req, req->nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				const char *msg = ext_ack(h);

				if (why)
					snprintf(why, whylen, "%s", msg ? msg : "");
				return e->error;
			}
			if (reply && h->nlmsg_len <= sizeof(reply->buf))
				memcpy(reply->buf, h, h->nlmsg_len);
		}
	}
}

static void nl_check(int err, const char *what, const char *why)
{
	if (!err)
		return;
	fprintf(stderr, "ppdrive: %s: %s%s%s\n", what, strerror(-err),
		why[0] ? ": " : "", why);
	exit(err == -EOPNOTSUPP ? EXIT_MISSING : EXIT_REFUSED);
}

static int setlink_xdp(int ifindex, int prog_fd, __u32 flags, char *why, size_t whylen)
{
	struct nlbuf m;
	struct ifinfomsg *ifi;
	struct rtattr *xdp;
	int fd, err;

	memset(&m, 0, sizeof(m));
	m.h.nlmsg_type = RTM_SETLINK;
	m.h.nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
	ifi = NLMSG_DATA(&m.h);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	xdp = put_attr(&m.h, IFLA_XDP | NLA_F_NESTED, NULL, 0);
	put_u32(&m.h, IFLA_XDP_FD, (__u32)prog_fd);
	put_u32(&m.h, IFLA_XDP_FLAGS, flags);
	end_nest(&m.h, xdp);
	fd = nl_open(NETLINK_ROUTE);
	err = nl_talk(fd, &m.h, NULL, why, whylen);
	close(fd);
	return err;
}

static int cmd_xdp(int argc, char **argv)
{
	int verdict = XDP_DROP, frags = 0, ifindex, fd, i, e1, e2;
	const char *ifname, *mode;
	char why[256] = "", why2[256] = "";
	__u32 flags;

	if (argc < 2)
		usage();
	ifname = argv[0];
	mode = argv[1];
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--verdict") && i + 1 < argc)
			verdict = verdict_of(argv[++i]);
		else if (!strcmp(argv[i], "--frags"))
			frags = 1;
		else
			usage();
	}
	ifindex = ifindex_of(ifname);
	if (!strcmp(mode, "off")) {
		/* whichever mode is attached: driver, then skb */
		e1 = setlink_xdp(ifindex, -1, XDP_FLAGS_DRV_MODE, why, sizeof(why));
		e2 = setlink_xdp(ifindex, -1, XDP_FLAGS_SKB_MODE, why2, sizeof(why2));
		if (e1 && e2)
			nl_check(e2, "XDP detach", why2);
		printf("xdp %s off\n", ifname);
		return 0;
	}
	if (!strcmp(mode, "native"))
		flags = XDP_FLAGS_DRV_MODE;
	else if (!strcmp(mode, "generic"))
		flags = XDP_FLAGS_SKB_MODE;
	else
		usage();
	fd = load_xdp(verdict, frags);
	nl_check(setlink_xdp(ifindex, fd, flags, why, sizeof(why)), "XDP attach", why);
	printf("xdp %s %s prog=%u verdict=%d frags=%d\n", ifname, mode, prog_id(fd),
	       verdict, frags);
	return 0;
}

static int cmd_prog(int argc, char **argv)
{
	int verdict = -1, frags = 0, i, fd;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--verdict") && i + 1 < argc)
			verdict = verdict_of(argv[++i]);
		else if (!strcmp(argv[i], "--frags"))
			frags = 1;
		else
			usage();
	}
	if (verdict < 0)
		usage();
	fd = load_xdp(verdict, frags);
	printf("prog id=%u verdict=%d frags=%d\n", prog_id(fd), verdict, frags);
	return 0;
}

/* ---- test_run ---- */

static void frame_header(unsigned char *f)
{
	static const unsigned char src[6] = { 0x02, 0, 0, 0, 0, 0x01 };

	memset(f, 0xff, 6);
	memcpy(f + 6, src, 6);
	f[12] = PPD_ETHERTYPE >> 8;
	f[13] = PPD_ETHERTYPE & 0xff;
}

static int cmd_testrun(int argc, char **argv)
{
	long frames = 0, batch = 0, repeat = 1, size = 64, ifindex = 0, r;
	int verdict = -1, i, fd;
	static unsigned char data[4096];
	struct xdp_md ctx;
	union bpf_attr attr;

	for (i = 0; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--verdict"))
			verdict = verdict_of(argv[++i]);
		else if (!strcmp(argv[i], "--frames"))
			frames = num(argv[++i], "--frames");
		else if (!strcmp(argv[i], "--batch"))
			batch = num(argv[++i], "--batch");
		else if (!strcmp(argv[i], "--repeat"))
			repeat = num(argv[++i], "--repeat");
		else if (!strcmp(argv[i], "--size"))
			size = num(argv[++i], "--size");
		else if (!strcmp(argv[i], "--ifindex"))
			ifindex = num(argv[++i], "--ifindex");
		else
			usage();
	}
	if (verdict < 0 || !frames || !batch || size < ETH_HLEN || size > 3000)
		usage();
	frame_header(data);
	for (i = ETH_HLEN; i < size; i++)
		data[i] = i;
	fd = load_xdp(verdict, 0);
	memset(&ctx, 0, sizeof(ctx));
	ctx.ingress_ifindex = ifindex;
	for (r = 0; r < repeat; r++) {
		memset(&attr, 0, sizeof(attr));
		attr.test.prog_fd = fd;
		attr.test.data_in = (__u64)(unsigned long)data;
		attr.test.data_size_in = size;
		attr.test.repeat = frames;
		attr.test.batch_size = batch;
		attr.test.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
		if (ifindex) {
			attr.test.ctx_in = (__u64)(unsigned long)&ctx;
			attr.test.ctx_size_in = sizeof(ctx);
		}
		if (sys_bpf(BPF_PROG_TEST_RUN, &attr)) {
			fprintf(stderr, "ppdrive: BPF_PROG_TEST_RUN (live frames, %ld frames, batch %ld): %s\n",
				frames, batch, strerror(errno));
			return errno == EINVAL ? EXIT_MISSING : EXIT_REFUSED;
		}
	}
	printf("testrun verdict=%d frames=%ld batch=%ld repeat=%ld size=%ld duration_ns=%u\n",
	       verdict, frames, batch, repeat, size, attr.test.duration);
	return 0;
}

/* ---- veth ---- */

static void put_ifattrs(struct nlmsghdr *h, const char *name, __u32 queues)
{
	put_str(h, IFLA_IFNAME, name);
	put_u32(h, IFLA_NUM_TX_QUEUES, queues);
	put_u32(h, IFLA_NUM_RX_QUEUES, queues);
}

static int cmd_veth(int argc, char **argv)
{
	struct rtattr *linkinfo, *data, *peer;
	struct ifinfomsg *ifi, pifi;
	char why[256] = "";
	struct nlbuf m;
	long queues = 1;
	int fd;

	if (argc == 4 && !strcmp(argv[2], "--queues"))
		queues = num(argv[3], "--queues");
	else if (argc != 2)
		usage();
	if (queues < 1)
		usage();
	memset(&m, 0, sizeof(m));
	m.h.nlmsg_type = RTM_NEWLINK;
	m.h.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	m.h.nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
	ifi = NLMSG_DATA(&m.h);
	ifi->ifi_family = AF_UNSPEC;
	put_ifattrs(&m.h, argv[0], queues);
	linkinfo = put_attr(&m.h, IFLA_LINKINFO, NULL, 0);
	put_str(&m.h, IFLA_INFO_KIND, "veth");
	data = put_attr(&m.h, IFLA_INFO_DATA, NULL, 0);
	memset(&pifi, 0, sizeof(pifi));
	pifi.ifi_family = AF_UNSPEC;
	/* VETH_INFO_PEER: a struct ifinfomsg, then the peer's attributes */
	peer = put_attr(&m.h, VETH_INFO_PEER, &pifi, sizeof(pifi));
	put_ifattrs(&m.h, argv[1], queues);
	end_nest(&m.h, peer);
	end_nest(&m.h, data);
	end_nest(&m.h, linkinfo);
	fd = nl_open(NETLINK_ROUTE);
	nl_check(nl_talk(fd, &m.h, NULL, why, sizeof(why)), "veth create", why);
	close(fd);
	printf("veth %s peer %s queues %ld/%ld\n", argv[0], argv[1], queues, queues);
	return 0;
}

/* ---- AF_PACKET ---- */

static int packet_socket(const char *ifname, int proto)
{
	struct sockaddr_ll sll;
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(proto));

	if (fd < 0) {
		fprintf(stderr, "ppdrive: AF_PACKET socket: %s\n", strerror(errno));
		exit(errno == EAFNOSUPPORT ? EXIT_MISSING : EXIT_REFUSED);
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(proto);
	sll.sll_ifindex = ifindex_of(ifname);
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "ppdrive: bind to %s: %s\n", ifname, strerror(errno));
		exit(EXIT_REFUSED);
	}
	return fd;
}

static int cmd_send(int argc, char **argv)
{
	static unsigned char frame[65536];
	long n, size, i, sent = 0, retries = 0;
	struct timespec pause = { 0, 1000000 };
	int fd, j, cpu = -1;
	cpu_set_t set;

	if (argc < 3)
		usage();
	n = num(argv[1], "N");
	size = num(argv[2], "SIZE");
	for (j = 3; j < argc; j++) {
		if (!strcmp(argv[j], "--cpu") && j + 1 < argc)
			cpu = num(argv[++j], "--cpu");
		else
			usage();
	}
	if (size < ETH_HLEN || size > (long)sizeof(frame))
		usage();
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "ppdrive: CPU %d: %s\n", cpu, strerror(errno));
			return EXIT_REFUSED;
		}
	}
	fd = packet_socket(argv[0], PPD_ETHERTYPE);
	frame_header(frame);
	for (i = ETH_HLEN; i < size; i++)
		frame[i] = i;
	for (i = 0; i < n; i++) {
		if (send(fd, frame, size, 0) == size) {
			sent++;
			continue;
		}
		/* a full qdisc or device queue: wait a little, try again */
		if ((errno == ENOBUFS || errno == EAGAIN) && retries++ < 10000) {
			nanosleep(&pause, NULL);
			i--;
			continue;
		}
		fprintf(stderr, "ppdrive: send on %s (frame %ld of %ld, %ld bytes): %s\n",
			argv[0], i + 1, n, size, strerror(errno));
		return EXIT_REFUSED;
	}
	printf("sent %ld frames of %ld bytes on %s\n", sent, size, argv[0]);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* What the socket has queued: received minus dropped, counted since open. */
static long queued(int fd, long *drops)
{
	static long total, dropped;
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	if (!getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len)) {
		total += st.tp_packets;	/* drops included, counters reset */
		dropped += st.tp_drops;
	}
	*drops = dropped;
	return total - dropped;
}

static int cmd_hold(int argc, char **argv)
{
	struct timespec tick = { 0, 20000000 };
	const char *until = NULL;
	long n, k = 0, drops = 0;
	int fd, rcvbuf, i, said = 0;
	struct sigaction sa;
	struct stat st;

	if (argc < 2)
		usage();
	n = num(argv[1], "N");
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--until") && i + 1 < argc)
			until = argv[++i];
		else
			usage();
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = packet_socket(argv[0], ETH_P_ALL);
	/* each queued skb is charged about a page and a half of truesize */
	rcvbuf = (int)(n * 8192 + 65536);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf))) {
		fprintf(stderr, "ppdrive: SO_RCVBUFFORCE %d: %s\n", rcvbuf, strerror(errno));
		return EXIT_REFUSED;
	}
	printf("listening on %s for %ld\n", argv[0], n);
	fflush(stdout);
	while (!stop && !(until && !stat(until, &st))) {
		k = queued(fd, &drops);
		if (!said && k >= n) {
			printf("holding %ld\n", k);
			fflush(stdout);
			said = 1;
		}
		nanosleep(&tick, NULL);
	}
	k = queued(fd, &drops);
	close(fd);
	printf("released %ld dropped %ld\n", k, drops);
	return said ? 0 : EXIT_REFUSED;
}

/* ---- genetlink page-pool dump ---- */

static const struct nlattr *nla_first(const struct nlmsghdr *h, size_t hdr)
{
	return (const struct nlattr *)((const char *)NLMSG_DATA(h) + NLMSG_ALIGN(hdr));
}

#define nla_for_each(a, h, hdr) \
	for (a = nla_first(h, hdr); \
	     (const char *)a + NLA_HDRLEN <= (const char *)(h) + (h)->nlmsg_len && \
	     a->nla_len >= NLA_HDRLEN; \
	     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len)))

static unsigned long long nla_uint(const struct nlattr *a)
{
	const char *d = (const char *)a + NLA_HDRLEN;
	__u64 v64;
	__u32 v32;
	__u16 v16;

	switch (a->nla_len - NLA_HDRLEN) {
	case 8:
		memcpy(&v64, d, 8);
		return v64;
	case 4:
		memcpy(&v32, d, 4);
		return v32;
	case 2:
		memcpy(&v16, d, 2);
		return v16;
	default:
		return 0;
	}
}

static int genl_family(int fd, const char *name)
{
	struct nlbuf m, reply;
	struct genlmsghdr *g;
	const struct nlattr *a;
	char why[256] = "";
	int err;

	memset(&m, 0, sizeof(m));
	memset(&reply, 0, sizeof(reply));
	m.h.nlmsg_type = GENL_ID_CTRL;
	m.h.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	g = NLMSG_DATA(&m.h);
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	put_str(&m.h, CTRL_ATTR_FAMILY_NAME, name);
	err = nl_talk(fd, &m.h, &reply, why, sizeof(why));
	if (err == -ENOENT)
		return 0;
	nl_check(err, "genetlink family lookup", why);
	nla_for_each(a, &reply.h, GENL_HDRLEN)
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			return (int)nla_uint(a);
	return 0;
}

static int cmd_pools(void)
{
	static char buf[65536];
	int fd = nl_open(NETLINK_GENERIC), family, pools = 0;
	const struct nlattr *a;
	struct genlmsghdr *g;
	struct nlmsghdr *h;
	struct nlbuf m;
	ssize_t n;

	family = genl_family(fd, "netdev");
	if (!family) {
		fprintf(stderr, "ppdrive: pools: no netdev genetlink family in this kernel\n");
		return EXIT_MISSING;
	}
	memset(&m, 0, sizeof(m));
	m.h.nlmsg_type = family;
	m.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	m.h.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	g = NLMSG_DATA(&m.h);
	g->cmd = PPD_NETDEV_CMD_PAGE_POOL_GET;
	g->version = 1;
	if (send(fd, &m.h, m.h.nlmsg_len, 0) < 0) {
		fprintf(stderr, "ppdrive: pools: send: %s\n", strerror(errno));
		return EXIT_REFUSED;
	}
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			fprintf(stderr, "ppdrive: pools: recv: %s\n", strerror(errno));
			return EXIT_REFUSED;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				printf("pools %d\n", pools);
				return 0;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				fprintf(stderr, "ppdrive: pools: NETDEV_CMD_PAGE_POOL_GET: %s\n",
					strerror(-e->error));
				return e->error == -EOPNOTSUPP ? EXIT_MISSING : EXIT_REFUSED;
			}
			printf("pool");
			nla_for_each(a, h, GENL_HDRLEN) {
				switch (a->nla_type & NLA_TYPE_MASK) {
				case PPD_NETDEV_A_PAGE_POOL_ID:
					printf(" id=%llu", nla_uint(a));
					break;
				case PPD_NETDEV_A_PAGE_POOL_IFINDEX:
					printf(" ifindex=%llu", nla_uint(a));
					break;
				case PPD_NETDEV_A_PAGE_POOL_NAPI_ID:
					printf(" napi=%llu", nla_uint(a));
					break;
				case PPD_NETDEV_A_PAGE_POOL_INFLIGHT:
					printf(" inflight=%llu", nla_uint(a));
					break;
				case PPD_NETDEV_A_PAGE_POOL_INFLIGHT_MEM:
					printf(" inflight_mem=%llu", nla_uint(a));
					break;
				case PPD_NETDEV_A_PAGE_POOL_DETACH_TIME:
					printf(" detached=%llu", nla_uint(a));
					break;
				}
			}
			printf("\n");
			pools++;
		}
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "xdp"))
		return cmd_xdp(argc - 2, argv + 2);
	if (!strcmp(argv[1], "prog"))
		return cmd_prog(argc - 2, argv + 2);
	if (!strcmp(argv[1], "testrun"))
		return cmd_testrun(argc - 2, argv + 2);
	if (!strcmp(argv[1], "veth"))
		return cmd_veth(argc - 2, argv + 2);
	if (!strcmp(argv[1], "send"))
		return cmd_send(argc - 2, argv + 2);
	if (!strcmp(argv[1], "hold"))
		return cmd_hold(argc - 2, argv + 2);
	if (!strcmp(argv[1], "pools") && argc == 2)
		return cmd_pools();
	usage();
	return EXIT_USAGE;
}
