/* The text views render_text.c prints after a kernel's summary, on the
 * helpers of text_out.h. */
#ifndef TREG_RENDER_TEXT_H
#define TREG_RENDER_TEXT_H

#include <stdint.h>
#include <stdio.h>

#include "render.h"

#include "text_out.h"

/* The views (text_views.c, text_why.c), which render_text.c prints. */
void treg_text_lines_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                          const treg_text_options *o);
void treg_text_peak_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                         const treg_text_options *o);
void treg_text_why_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                        const treg_text_options *o);
void treg_text_hot_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                        const treg_text_options *o);
void treg_text_asm_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                        const treg_text_options *o);

#endif
