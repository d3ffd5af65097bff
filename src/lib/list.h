/* SPDX-License-Identifier: GPL-2.0-or-later */
/* list.h: intrusive circular doubly-linked list (embed a struct list_node). */
#ifndef UT_LIST_H
#define UT_LIST_H

#include <stdbool.h>
#include "compiler.h"

struct list_node {
	struct list_node *next, *prev;
};

#define LIST_INIT(name)                                                                            \
	{                                                                                          \
		&(name), &(name)                                                                   \
	}

static inline void list_init(struct list_node *h)
{
	h->next = h->prev = h;
}
static inline bool list_empty(const struct list_node *h)
{
	return h->next == h;
}
static inline void list_insert_(struct list_node *n, struct list_node *prev, struct list_node *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}
static inline void list_add(struct list_node *h, struct list_node *n)
{
	list_insert_(n, h, h->next);
}
static inline void list_add_tail(struct list_node *h, struct list_node *n)
{
	list_insert_(n, h->prev, h);
}
/* Unlink n and leave it self-linked, so a second list_del is harmless. */
static inline void list_del(struct list_node *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}
static inline bool list_linked(const struct list_node *n)
{
	return n->next != n;
}

#define list_entry(ptr, type, member)	  container_of(ptr, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#define list_for_each_entry(pos, head, member)                                                     \
	for (pos = list_entry((head)->next, __typeof__(*pos), member); &pos->member != (head);     \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, tmp, head, member)                                           \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),                             \
	    tmp = list_entry(pos->member.next, __typeof__(*pos), member);                          \
	     &pos->member != (head);                                                               \
	     pos = tmp, tmp = list_entry(tmp->member.next, __typeof__(*tmp), member))

#endif
