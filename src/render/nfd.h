/* render/nfd.h - Node Feature Discovery output: the label syntax, the file's limits,
 * and the options `check --format nfd` takes (render/check-nfd.c) */
#ifndef NODEAUDIT_NFD_H
#define NODEAUDIT_NFD_H

/* Every label's prefix: a sub-namespace of NFD's own, which nfd-master
 * accepts without -extra-label-ns. */
#define NFD_PREFIX "nodeaudit.feature.node.kubernetes.io/"
/* nfd-worker ignores a feature file larger than this (local.MaxFeatureFileSize). */
#define NFD_FILE_MAX 65536
/* How long after the audit its labels stay, unless the file is rewritten. */
#define NFD_VALIDITY_DEFAULT (3 * 3600L)

/* What `check` hands the renderer in struct doc's data. */
struct nfd_opts {
	long validity;   /* seconds; 0: NFD_VALIDITY_DEFAULT */
};

/* Kubernetes' label syntax for a name (the part after the prefix) and a
 * value: 1 to 63 of [A-Za-z0-9._-], alphanumeric at both ends.  1 or 0. */
int nfd_label_name_ok(const char *s);
int nfd_label_value_ok(const char *s);

/* --nfd-expiry: "3h", "90m", "2d", "600s" or seconds; 60 s to 30 days. */
int nfd_parse_validity(const char *s, long *secs);

#endif
