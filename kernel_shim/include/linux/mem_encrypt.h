/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Memory encryption helpers (<linux/mem_encrypt.h>), as mainline's system
 * heap uses them when it maps shared pages into a process.
 *
 * (a) pgprot_encrypted()/pgprot_decrypted() as on a machine with no memory
 *     encryption (the kernel's generic definitions): the protection is
 *     returned unchanged.
 */
#ifndef _DMASIM_LINUX_MEM_ENCRYPT_H
#define _DMASIM_LINUX_MEM_ENCRYPT_H

#ifndef pgprot_encrypted
#define pgprot_encrypted(prot)	(prot)
#define pgprot_decrypted(prot)	(prot)
#endif

#endif
