/* probe/memory-locator.c - the DIMM locator grammar: package and channel from a slot's names */
#include "config.h"
#include "probe/memory.h"
#include "lib/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*** Locator grammar ***/

static int is_sep(char c)
{
	return c == ' ' || c == '_' || c == '-' || c == '#' || c == '.' || c == ':';
}

static int token_start(const char *u, size_t i)
{
	return i == 0 || !isalpha((unsigned char)u[i - 1]);
}

/* Digits at u+i (at most 3) into buf; returns how many. */
static size_t digits(const char *u, size_t i, char *buf, size_t n)
{
	size_t k = 0;
	while (isdigit((unsigned char)u[i + k]) && k < 3 && k + 1 < n) {
		buf[k] = u[i + k];
		k++;
	}
	if (isdigit((unsigned char)u[i + k]))
		return 0;      /* more than 3 digits: not a small index */
	buf[k] = '\0';
	return k;
}

struct loc_parts {
	char pkg[8], chan[8], dimmchan[8], node[8], mc[8];
};

static void scan(const char *s, struct loc_parts *p, struct mem_loc *bare)
{
	char u[64];
	size_t i, n = 0, j;
	memset(p, 0, sizeof(*p));
	if (!s)
		return;
	for (i = 0; s[i] && n + 1 < sizeof(u); i++)
		u[n++] = (char)toupper((unsigned char)s[i]);
	u[n] = '\0';
	strtrim(u);
	if (bare && isalpha((unsigned char)u[0]) && isdigit((unsigned char)u[1]) &&
	    (!u[2] || (isdigit((unsigned char)u[2]) && !u[3]))) {
		bare->bare = 1;
		bare->letter = u[0];
		bare->num = atoi(u + 1);
		return;
	}
	for (i = 0; u[i]; i++) {
		if (!token_start(u, i))
			continue;
		if (!strncmp(u + i, "SRCID#", 6)) {
			digits(u, i + 6, p->pkg, sizeof(p->pkg));
		} else if (!strncmp(u + i, "CHANNEL", 7) || !strncmp(u + i, "CHAN", 4)) {
			j = i + (strncmp(u + i, "CHANNEL", 7) ? 4 : 7);
			while (is_sep(u[j]))
				j++;
			if (isalpha((unsigned char)u[j]) && !isalpha((unsigned char)u[j + 1])) {
				p->chan[0] = u[j];
				p->chan[1] = '\0';
			} else
				digits(u, j, p->chan, sizeof(p->chan));
		} else if (!strncmp(u + i, "MC#", 3)) {
			digits(u, i + 3, p->mc, sizeof(p->mc));
		} else if (!strncmp(u + i, "CONTROLLER", 10)) {
			/* Controller0-ChannelA-DIMM0: two controllers each with A, B */
			j = i + 10;
			while (u[j] == ' ')
				j++;
			digits(u, j, p->mc, sizeof(p->mc));
		} else if (!strncmp(u + i, "DIMM", 4)) {
			j = i + 4;
			while (u[j] == ' ' || u[j] == '_')
				j++;
			/* DIMM_P1_A0: the package first, then the channel letter */
			if (u[j] == 'P' && isdigit((unsigned char)u[j + 1])) {
				size_t k = j + 1;
				while (isdigit((unsigned char)u[k]))
					k++;
				if (is_sep(u[k]) && isalpha((unsigned char)u[k + 1]))
					j = k + 1;
			}
			/* DIMM_A1, DIMMA1; and Dell's "DIMM A" / "DIMM B" (one
			 * SODIMM per channel) where the letter ends the name */
			if (isalpha((unsigned char)u[j]) &&
			    (isdigit((unsigned char)u[j + 1]) || (!u[j + 1] && j > i + 4))) {
				p->dimmchan[0] = u[j];
				p->dimmchan[1] = '\0';
			}
		} else if (!strncmp(u + i, "CPU", 3) || !strncmp(u + i, "PROC", 4) ||
			   !strncmp(u + i, "SOCKET", 6)) {
			j = i + (u[i] == 'C' ? 3 : u[i + 1] == 'R' ? 4 : 6);
			while (u[j] == ' ')
				j++;
			if (isdigit((unsigned char)u[j]) && !p->pkg[0])
				digits(u, j, p->pkg, sizeof(p->pkg));
		} else if (u[i] == 'P' && isdigit((unsigned char)u[i + 1])) {
			if (!p->pkg[0])
				digits(u, i + 1, p->pkg, sizeof(p->pkg));
		} else if (!strncmp(u + i, "NODE", 4)) {
			j = i + 4;
			while (u[j] == ' ')
				j++;
			digits(u, j, p->node, sizeof(p->node));
		}
	}
}

static void chan_label(const struct loc_parts *p, char *out, size_t n)
{
	const char *c = p->chan[0] ? p->chan : p->dimmchan;
	out[0] = '\0';
	if (!*c)
		return;
	if (p->mc[0])
		snprintf(out, n, "MC%s-%s", p->mc, c);
	else if (p->node[0] && p->chan[0])
		snprintf(out, n, "N%s-%s", p->node, c);
	else
		snprintf(out, n, "%s", c);
}

int mem_parse_locator(const char *locator, const char *bank, struct mem_loc *out)
{
	struct loc_parts a, b;
	char ca[32], cb[32];
	memset(out, 0, sizeof(*out));
	scan(locator, &a, out);
	scan(bank, &b, NULL);
	chan_label(&a, ca, sizeof(ca));
	chan_label(&b, cb, sizeof(cb));
	snprintf(out->pkg, sizeof(out->pkg), "%s", a.pkg[0] ? a.pkg : b.pkg);
	if (out->bare && (cb[0] || b.pkg[0])) {
		out->bare = 0;   /* the bank says more than a bare "A1" */
	}
	snprintf(out->chan, sizeof(out->chan), "%s", ca[0] ? ca : cb);
	return out->chan[0] != '\0';
}
