/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The dependency closure of a refusal.  rpm fails only the element a plugin
 * refuses (and keeps that element's own erasures); the packages that Require
 * it would install against a capability nothing provides.  Every added
 * element with a requirement that, after the refusals, is met neither by an
 * installed package that stays nor by an added element that stays is left
 * out too, transitively.  Matching is rpm's own (rpmds), rich and file
 * requirements included.
 *
 * Nothing is indexed until the first refusal: a transaction without one
 * costs a pass over its elements.  Then every requirement leaf is indexed by
 * name once, and each element left out is visited once (a worklist), so a
 * thousand dependents of one package cost a thousand requirement checks.
 *
 * A package refused or left out by an earlier transaction into the same root
 * (memory.c: zypper installs one package per rpm call, --nodeps) joins as an
 * element of its own, after the transaction's: it provides what its record
 * says, it is never installed, and the same worklist leaves out what needs it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpm/header.h>
#include <rpm/rpmdb.h>
#include <rpm/rpmds.h>
#include <rpm/rpmfiles.h>
#include <rpm/rpmstrpool.h>
#include <rpm/rpmts.h>
#include <rpm/rpmte.h>

#include "tgp.h"

/* A line says one thing; rpm prefixes "error: " (docs/rpm.md: at most 160 columns). */
#define LINE_MAX_COLS 152
#define NEED_MAX_COLS 64

enum cl_state { CL_STAYS, CL_REFUSED, CL_LEFT_OUT };

struct cl_elem {
	rpmte te;
	Header h;		/* read in tsm_pre (scan.c); rpm has dropped the element's sets */
	rpmds req, prov;	/* from h, or the element's own (not freed then) */
	bool own_ds;
	rpmfiles files;		/* taken when first needed */
	enum cl_state state;
	bool said;
	size_t because;		/* left out: the element whose provide it lost */
	char *why;		/* left out: the line that says so */
	char *earlier;		/* NULL, or an earlier transaction's package: its NEVRA */
	time_t when;		/* ... and when it was refused or left out */
};

/* A name (provide, or a leaf of a requirement) and where it comes from. */
struct cl_key {
	char *name;
	size_t elem;
	int ix;			/* index in the element's rpmds */
};

/* An added element by its address: psm_pre asks once per element. */
struct cl_by_te {
	rpmte te;
	size_t elem;
};

struct cl_removed {
	unsigned int instance;	/* rpmdb instance erased by the transaction */
	rpmte owner;		/* the upgrade or obsoleting element, NULL: a plain erase */
};

struct tgp_closure {
	rpmts ts;
	rpmstrPool pool;	/* the sets' strings (not frozen, see sets_of()) */
	struct cl_elem *e;
	size_t n;		/* the transaction's added elements, e[0..n) */
	size_t n_earlier;	/* earlier transactions' packages, e[n..n + n_earlier) */
	struct cl_by_te *by_te;	/* e[0..n) sorted by element */
	bool warn;		/* %_taintguard_mode warn: only said, nothing left out */
	struct cl_key *reqs, *provs;	/* sorted by name */
	size_t n_reqs, n_provs;
	bool indexed, file_reqs;
	struct cl_removed *rm;
	size_t n_rm;
	size_t *queue;		/* refused or left out, their dependents not yet looked at */
	size_t n_queue;
};

static int key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cl_key *)a)->name, ((const struct cl_key *)b)->name);
}

static bool skipped_dep(rpmds ds)
{
	const char *n = rpmdsN(ds);

	/* rpm's own features: never provided by a package */
	return !n || (rpmdsFlags(ds) & RPMSENSE_RPMLIB) || strncmp(n, "rpmlib(", 7) == 0;
}

static int by_te_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct cl_by_te *)a)->te;
	uintptr_t y = (uintptr_t)((const struct cl_by_te *)b)->te;

	return x < y ? -1 : x > y;
}

/* A search, not a scan: a thousand elements each asked for in psm_pre. */
static long elem_of(const struct tgp_closure *cl, rpmte te)
{
	struct cl_by_te key = { .te = te }, *f;

	f = cl->n ? bsearch(&key, cl->by_te, cl->n, sizeof(key), by_te_cmp) : NULL;
	return f ? (long)f->elem : -1;
}

struct tgp_closure *tgp_closure_new(rpmts ts)
{
	struct tgp_closure *cl = calloc(1, sizeof(*cl));
	int n = rpmtsNElements(ts);

	if (!cl || !(cl->e = calloc(n > 0 ? (size_t)n : 1, sizeof(*cl->e))) ||
	    !(cl->rm = calloc(n > 0 ? (size_t)n : 1, sizeof(*cl->rm))) ||
	    !(cl->queue = calloc(n > 0 ? (size_t)n : 1, sizeof(*cl->queue))) ||
	    !(cl->by_te = calloc(n > 0 ? (size_t)n : 1, sizeof(*cl->by_te)))) {
		tgp_closure_free(cl);
		return NULL;
	}
	cl->ts = ts;
	if (!(cl->pool = rpmstrPoolCreate())) {
		tgp_closure_free(cl);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		rpmte te = rpmtsElement(ts, i);

		if (rpmteType(te) == TR_ADDED) {
			cl->by_te[cl->n] = (struct cl_by_te){ .te = te, .elem = cl->n };
			cl->e[cl->n++] = (struct cl_elem){ .te = te };
		} else
			cl->rm[cl->n_rm++] = (struct cl_removed){ .instance = rpmteDBInstance(te),
								  .owner = rpmteDependsOn(te) };
	}
	qsort(cl->by_te, cl->n, sizeof(*cl->by_te), by_te_cmp);
	return cl;
}

static void keys_free(struct cl_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i].name);
	free(k);
}

void tgp_closure_free(struct tgp_closure *cl)
{
	if (!cl)
		return;
	for (size_t i = 0; cl->e && i < cl->n + cl->n_earlier; i++) {
		free(cl->e[i].earlier);
		if (cl->e[i].own_ds) {
			rpmdsFree(cl->e[i].req);
			rpmdsFree(cl->e[i].prov);
		}
		headerFree(cl->e[i].h);
		rpmfilesFree(cl->e[i].files);
		free(cl->e[i].why);
	}
	free(cl->e);
	free(cl->rm);
	free(cl->queue);
	free(cl->by_te);
	keys_free(cl->reqs, cl->n_reqs);
	keys_free(cl->provs, cl->n_provs);
	rpmstrPoolFree(cl->pool);
	free(cl);
}

/* ------------------------------------------------------------ the index */

static int key_add(struct cl_key **k, size_t *n, size_t *cap, const char *name, size_t elem,
		   int ix)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		struct cl_key *a = realloc(*k, c * sizeof(*a));

		if (!a)
			return -1;
		*k = a;
		*cap = c;
	}
	if (!((*k)[*n].name = strdup(name)))
		return -1;
	(*k)[*n].elem = elem;
	(*k)[(*n)++].ix = ix;
	return 0;
}

/* The parts rpmdsParseRichDep() gives are single entries: make sure they are current. */
static bool at_first(rpmds ds)
{
	if (!ds)
		return false;
	return rpmdsIx(ds) >= 0 || rpmdsNext(ds) >= 0;
}

/* The names a requirement can be met by: its leaves when rich. */
static int add_leaves(struct tgp_closure *cl, size_t *cap, rpmds dep, size_t elem, int ix)
{
	rpmds l = NULL, r = NULL;
	rpmrichOp op;
	int ret = 0;

	if (!rpmdsIsRich(dep)) {
		if (rpmdsN(dep)[0] == '/')
			cl->file_reqs = true;
		return key_add(&cl->reqs, &cl->n_reqs, cap, rpmdsN(dep), elem, ix);
	}
	if (rpmdsParseRichDep(dep, &l, &r, &op, NULL) != RPMRC_OK)
		return 0;	/* rpm refuses it itself */
	if (at_first(l))
		ret = add_leaves(cl, cap, l, elem, ix);
	if (ret == 0 && at_first(r))
		ret = add_leaves(cl, cap, r, elem, ix);
	rpmdsFree(l);
	rpmdsFree(r);
	return ret;
}

/*
 * The element's requirements and provides: from its header when scan.c read
 * one; else rpm's sets, if it still has them, or at least its own name.
 * In a pool that stays open: the parts of a rich requirement are added to
 * its pool, and a frozen one (rpmdsNew's own) gives them no names.
 */
static void sets_of(struct cl_elem *e, rpmstrPool pool)
{
	if (e->h) {
		e->req = rpmdsNewPool(pool, e->h, RPMTAG_REQUIRENAME, 0);
		e->prov = rpmdsNewPool(pool, e->h, RPMTAG_PROVIDENAME, 0);
		e->own_ds = true;
		return;
	}
	e->req = rpmteDS(e->te, RPMTAG_REQUIRENAME);
	e->prov = rpmteDS(e->te, RPMTAG_PROVIDENAME);
	if (e->prov && rpmdsCount(e->prov) > 0)
		return;
	e->own_ds = true;
	e->req = rpmdsLink(e->req);
	e->prov = rpmdsSinglePool(pool, RPMTAG_PROVIDENAME, rpmteN(e->te), rpmteEVR(e->te),
				  RPMSENSE_EQUAL);
}

static int index_elem(struct tgp_closure *cl, size_t i, size_t *rcap, size_t *pcap)
{
	struct cl_elem *e = &cl->e[i];
	int ix;

	if (!e->earlier)	/* an earlier one brought its provides and needs nothing */
		sets_of(e, cl->pool);
	for (rpmdsInit(e->req); (ix = rpmdsNext(e->req)) >= 0;)
		if (!skipped_dep(e->req) && add_leaves(cl, rcap, e->req, i, ix) < 0)
			return -1;
	for (rpmdsInit(e->prov); (ix = rpmdsNext(e->prov)) >= 0;)
		if (key_add(&cl->provs, &cl->n_provs, pcap, rpmdsN(e->prov), i, ix) < 0)
			return -1;
	return 0;
}

static int build_index(struct tgp_closure *cl)
{
	size_t rcap = 0, pcap = 0;

	for (size_t i = 0; i < cl->n + cl->n_earlier; i++)
		if (index_elem(cl, i, &rcap, &pcap) < 0)
			return -1;
	qsort(cl->reqs, cl->n_reqs, sizeof(*cl->reqs), key_cmp);
	qsort(cl->provs, cl->n_provs, sizeof(*cl->provs), key_cmp);
	cl->indexed = true;
	return 0;
}

/* The first key named @name, and how many follow: [*first, *first + return). */
static size_t keys_named(const struct cl_key *k, size_t n, const char *name, size_t *first)
{
	size_t lo = 0, hi = n, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(k[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < n && strcmp(k[end].name, name) == 0; end++)
		;
	*first = lo;
	return end - lo;
}

/* ------------------------------------------------------------ who provides */

static rpmfiles files_of(struct cl_elem *e)
{
	if (!e->files && e->te)	/* an earlier one: its record has no file list */
		e->files = rpmteFiles(e->te);
	return e->files;
}

/* An installed package goes: erased, unless by an element that is refused or left out. */
static bool instance_goes(const struct tgp_closure *cl, unsigned int instance)
{
	for (size_t i = 0; i < cl->n_rm; i++) {
		long owner;

		if (cl->rm[i].instance != instance)
			continue;
		if (!cl->rm[i].owner)
			return true;
		owner = elem_of(cl, cl->rm[i].owner);
		return owner < 0 || cl->e[owner].state == CL_STAYS;
	}
	return false;
}

static bool installed_provides(struct tgp_closure *cl, rpmds req)
{
	const char *n = rpmdsN(req);
	rpmDbiTagVal tags[2] = { RPMDBI_PROVIDENAME, RPMDBI_INSTFILENAMES };
	bool found = false;

	for (int t = 0; t < (n[0] == '/' ? 2 : 1) && !found; t++) {
		rpmdbMatchIterator mi = rpmtsInitIterator(cl->ts, tags[t], n, 0);
		Header h;

		while (!found && (h = rpmdbNextIterator(mi)) != NULL)
			found = !instance_goes(cl, headerGetInstance(h)) &&
				(tags[t] == RPMDBI_INSTFILENAMES || rpmdsAnyMatchesDep(h, req, 1));
		rpmdbFreeIterator(mi);
	}
	return found;
}

static bool added_provides(struct tgp_closure *cl, rpmds req)
{
	const char *n = rpmdsN(req);
	size_t first, cnt = keys_named(cl->provs, cl->n_provs, n, &first);

	for (size_t k = first; k < first + cnt; k++) {
		struct cl_elem *e = &cl->e[cl->provs[k].elem];

		if (e->state != CL_STAYS)
			continue;
		rpmdsSetIx(e->prov, cl->provs[k].ix);
		if (rpmdsCompare(e->prov, req))
			return true;
	}
	if (n[0] != '/')
		return false;
	for (size_t i = 0; i < cl->n; i++) {
		rpmfiles f;

		if (cl->e[i].state == CL_STAYS && (f = files_of(&cl->e[i])) != NULL &&
		    rpmfilesFindFN(f, n) >= 0)
			return true;
	}
	return false;
}

static bool satisfied(struct tgp_closure *cl, rpmds req);

/* As rpm's depends.c reads a rich requirement; @r may be "(X else Y)". */
static bool rich_satisfied(struct tgp_closure *cl, rpmrichOp op, rpmds l, rpmds r)
{
	rpmds c = NULL, alt = NULL;
	rpmrichOp op2;
	bool ok;

	switch (op) {
	case RPMRICHOP_AND:
	case RPMRICHOP_WITH:
		return satisfied(cl, l) && satisfied(cl, r);
	case RPMRICHOP_OR:
		return satisfied(cl, l) || satisfied(cl, r);
	case RPMRICHOP_WITHOUT:
		return satisfied(cl, l);
	case RPMRICHOP_IF:
	case RPMRICHOP_UNLESS:
		break;
	default:
		return true;	/* not a requirement rpm would check either */
	}
	if (rpmdsIsRich(r) && rpmdsParseRichDep(r, &c, &alt, &op2, NULL) == RPMRC_OK &&
	    op2 == RPMRICHOP_ELSE && at_first(c) && at_first(alt)) {
		bool cond = satisfied(cl, c);

		if (op == RPMRICHOP_UNLESS)
			cond = !cond;
		ok = cond ? satisfied(cl, l) : satisfied(cl, alt);
	} else {
		bool cond = satisfied(cl, r);

		ok = (op == RPMRICHOP_IF ? !cond : cond) || satisfied(cl, l);
	}
	rpmdsFree(c);
	rpmdsFree(alt);
	return ok;
}

/* @req (its current entry) is met by what stays. */
static bool satisfied(struct tgp_closure *cl, rpmds req)
{
	rpmds l = NULL, r = NULL;
	rpmrichOp op;
	bool ok;

	if (!req || !rpmdsN(req))
		return true;
	if (!rpmdsIsRich(req))
		return added_provides(cl, req) || installed_provides(cl, req);
	if (rpmdsParseRichDep(req, &l, &r, &op, NULL) != RPMRC_OK)
		return true;	/* rpm refuses it itself */
	at_first(l);
	at_first(r);
	ok = rich_satisfied(cl, op, l, r);
	rpmdsFree(l);
	rpmdsFree(r);
	return ok;
}

/* ------------------------------------------------------------ the closure */

/* ", in an earlier transaction at 03:12" (another day: with the date); @brief: ", earlier at" */
static void when_of(const struct cl_elem *by, bool brief, char *buf, size_t size)
{
	time_t now = time(NULL);
	struct tm t, today;
	bool same_day;

	buf[0] = '\0';
	if (!by->earlier || !localtime_r(&by->when, &t) || !localtime_r(&now, &today))
		return;
	same_day = t.tm_yday == today.tm_yday && t.tm_year == today.tm_year;
	strftime(buf, size, brief ? (same_day ? ", earlier at %H:%M" : ", earlier on %Y-%m-%d %H:%M") :
		 same_day ? ", in an earlier transaction at %H:%M" :
		 ", in an earlier transaction on %Y-%m-%d %H:%M", &t);
}

/* "needs X, which ..." shortened to fit a line */
static void set_why(struct tgp_closure *cl, struct cl_elem *e, rpmds req)
{
	const struct cl_elem *by = &cl->e[e->because];
	const char *need = rpmdsDNEVR(req) + 2;	/* "R name >= v" */
	char buf[LINE_MAX_COLS + 1], when[64];
	int len = (int)strlen(need), n = 0;
	const char *which = by->state == CL_REFUSED ? "taintguard refused" :
			    by->earlier ? "taintguard left out" : "is not installed either";

	/* the long "in an earlier transaction" when it fits */
	for (int brief = 0; brief < 2 && (brief == 0 || n >= (int)sizeof(buf)); brief++) {
		when_of(by, brief, when, sizeof(when));
		n = snprintf(buf, sizeof(buf), "taintguard: %s%s%sneeds %.*s%s, which %s (%s%s)",
			     cl->warn ? "warn mode: " : "", rpmteNEVRA(e->te),
			     cl->warn ? " " : ": not installed: ",
			     len > NEED_MAX_COLS ? NEED_MAX_COLS - 3 : len, need,
			     len > NEED_MAX_COLS ? "..." : "", which,
			     by->earlier ? by->earlier : rpmteNEVRA(by->te), when);
	}
	free(e->why);
	e->why = strdup(buf);
}

/* Element @y's requirement @ix lost a provider in @x: left out if nothing else meets it. */
static void check_req(struct tgp_closure *cl, size_t x, size_t y, int ix)
{
	struct cl_elem *e = &cl->e[y];

	if (e->state != CL_STAYS)
		return;
	rpmdsSetIx(e->req, ix);
	if (satisfied(cl, e->req))
		return;
	e->state = CL_LEFT_OUT;
	e->because = x;
	set_why(cl, e, e->req);
	cl->queue[cl->n_queue++] = y;
}

static void lost_name(struct tgp_closure *cl, size_t x, const char *name)
{
	size_t first, cnt = keys_named(cl->reqs, cl->n_reqs, name, &first);

	for (size_t k = first; k < first + cnt; k++)
		check_req(cl, x, cl->reqs[k].elem, cl->reqs[k].ix);
}

/* Element @x is out: its provides and files are gone, look at who needed them. */
static void visit(struct tgp_closure *cl, size_t x)
{
	struct cl_elem *e = &cl->e[x];
	rpmfiles f;
	int ix;

	for (rpmdsInit(e->prov); (ix = rpmdsNext(e->prov)) >= 0;)
		lost_name(cl, x, rpmdsN(e->prov));
	if (!cl->file_reqs || !(f = files_of(e)))
		return;
	for (int i = 0; i < (int)rpmfilesFC(f); i++) {
		char *fn = rpmfilesFN(f, i);

		if (fn)
			lost_name(cl, x, fn);
		free(fn);
	}
}

void tgp_closure_header(struct tgp_closure *cl, rpmte te, Header h)
{
	long i = cl && h ? elem_of(cl, te) : -1;

	if (i >= 0 && !cl->e[i].h)
		cl->e[i].h = headerLink(h);
}

bool tgp_closure_refuse(struct tgp_closure *cl, rpmte te)
{
	long i = cl ? elem_of(cl, te) : -1;

	if (i < 0 || cl->e[i].state == CL_REFUSED)
		return false;
	/* a dependent refused on its own account: said for its own reason */
	cl->e[i].state = CL_REFUSED;
	cl->queue[cl->n_queue++] = (size_t)i;
	return true;
}

size_t tgp_closure_run(struct tgp_closure *cl)
{
	size_t before = 0, after = 0;

	if (!cl || !cl->n_queue)
		return 0;
	if (!cl->indexed && build_index(cl) < 0) {
		/* cannot tell who depends on what: keep rpm's own behaviour */
		cl->n_queue = 0;
		return 0;
	}
	for (size_t i = 0; i < cl->n; i++)
		before += cl->e[i].state == CL_LEFT_OUT;
	while (cl->n_queue)
		visit(cl, cl->queue[--cl->n_queue]);
	for (size_t i = 0; i < cl->n; i++)
		after += cl->e[i].state == CL_LEFT_OUT;
	return after - before;
}

/* The line for a left-out element, the first time only (NULL: it stays, or said). */
const char *tgp_closure_say(struct tgp_closure *cl, rpmte te)
{
	long i = cl ? elem_of(cl, te) : -1;

	if (i < 0 || cl->e[i].state != CL_LEFT_OUT || cl->e[i].said)
		return NULL;
	cl->e[i].said = true;
	return cl->e[i].why ? cl->e[i].why : "taintguard: not installed: it needs a refused package";
}

bool tgp_closure_left_out(struct tgp_closure *cl, rpmte te)
{
	long i = cl ? elem_of(cl, te) : -1;

	return i >= 0 && cl->e[i].state == CL_LEFT_OUT;
}

/* The left-out element named @nevra (@len bytes), NULL if none. */
rpmte tgp_closure_find(struct tgp_closure *cl, const char *nevra, size_t len)
{
	for (size_t i = 0; cl && i < cl->n; i++) {
		const char *n = rpmteNEVRA(cl->e[i].te);

		if (cl->e[i].state == CL_LEFT_OUT && n && strlen(n) == len && !strncmp(n, nevra, len))
			return cl->e[i].te;
	}
	return NULL;
}

/*
 * Say every left-out element not said yet (a test transaction: no psm_pre;
 * all or nothing).  Not echoed past a client that keeps rpm's log in a test
 * transaction, as the refusals are not (tgp_report()): dnf shows that log
 * when the test fails, and otherwise its own taintguard plugin says the same
 * before the real transaction.
 */
size_t tgp_closure_say_all(struct tgp_closure *cl, struct tgp_state *st, int lvl)
{
	size_t k = 0;

	for (size_t i = 0; cl && i < cl->n; i++) {
		const char *why = tgp_closure_say(cl, cl->e[i].te);

		if (why) {
			tgp_say(st, lvl, !st->test, "%s\n", why);
			k++;
		}
	}
	return k;
}

/* ------------------------------------------------------------ earlier transactions */

void tgp_closure_warn_only(struct tgp_closure *cl)
{
	if (cl)
		cl->warn = true;
}

/*
 * Package @nevra, refused (or left out: @left_out) by an earlier transaction
 * at @when, providing @p[0..n): what needs it and nothing else provides is
 * left out at tgp_closure_run().
 */
int tgp_closure_earlier(struct tgp_closure *cl, const char *nevra, bool left_out, time_t when,
			const struct tgp_provide *p, size_t n)
{
	size_t total = cl->n + cl->n_earlier + 1;
	struct cl_elem *e = realloc(cl->e, total * sizeof(*e));
	size_t *q;
	rpmds prov = NULL;

	if (!e)
		return -1;
	cl->e = e;
	if (!(q = realloc(cl->queue, total * sizeof(*q))))
		return -1;
	cl->queue = q;
	for (size_t i = 0; i < n; i++) {
		rpmds one = rpmdsSinglePool(cl->pool, RPMTAG_PROVIDENAME, p[i].name, p[i].evr,
					    p[i].flags);

		if (!one || rpmdsMerge(&prov, one) < 0) {
			rpmdsFree(one);
			rpmdsFree(prov);
			return -1;
		}
		rpmdsFree(one);
	}
	e = &cl->e[total - 1];
	*e = (struct cl_elem){ .prov = prov, .own_ds = true, .when = when,
			       .state = left_out ? CL_LEFT_OUT : CL_REFUSED };
	if (!(e->earlier = strdup(nevra))) {
		rpmdsFree(prov);
		return -1;
	}
	cl->n_earlier++;
	cl->queue[cl->n_queue++] = total - 1;
	return 0;
}

/*
 * After the transaction: the next element, from *@i on, that taintguard
 * refused or left out and rpm did not install (NULL: no more), with its
 * provides in *@p (free() it; the strings are the closure's).
 */
rpmte tgp_closure_next_out(struct tgp_closure *cl, size_t *i, bool *left_out,
			   struct tgp_provide **p, size_t *n)
{
	for (; cl && *i < cl->n; (*i)++) {
		struct cl_elem *e = &cl->e[*i];

		if (e->state == CL_STAYS || !rpmteFailed(e->te))
			continue;
		if (!e->prov)	/* never indexed (out of memory then) */
			sets_of(e, cl->pool);
		if (!(*p = calloc(rpmdsCount(e->prov) + 1, sizeof(**p))))
			return NULL;
		*n = 0;
		for (rpmdsInit(e->prov); rpmdsNext(e->prov) >= 0; (*n)++)
			(*p)[*n] = (struct tgp_provide){ .name = rpmdsN(e->prov),
							 .evr = rpmdsEVR(e->prov),
							 .flags = rpmdsFlags(e->prov) };
		*left_out = e->state == CL_LEFT_OUT;
		return cl->e[(*i)++].te;
	}
	return NULL;
}
