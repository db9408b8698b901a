// SPDX-License-Identifier: GPL-2.0-only
/*
 * One completion for tests/test_completion.c (<dmasim/kapi_completion.h>):
 * the shim's own completion code, driven from plain C.
 */
#include <linux/completion.h>

#include "kapi_door.h"
#include <dmasim/kapi_completion.h>

static struct completion done;

void kapi_completion_init(void)
{
	init_completion(&done);
}

void kapi_completion_complete(void)
{
	complete(&done);
	kapi_user_return();
}

long kapi_completion_wait(unsigned long timeout, int interruptible)
{
	long left;

	if (interruptible)
		left = wait_for_completion_interruptible_timeout(&done, timeout);
	else
		left = wait_for_completion_timeout(&done, timeout);
	return kapi_return(left);
}
