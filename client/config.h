/* Where tregc finds its server, token and CA file: flags first, then the
 * environment (TREG_SERVER, TREG_TOKEN, TREG_CA), then the config file
 * (TREG_CONFIG, else $XDG_CONFIG_HOME/treg/client.conf, else
 * ~/.config/treg/client.conf), each setting on its own.  Nothing here
 * prints or exits: errors come back as a message for main to print. */
#ifndef TREGC_CONFIG_H
#define TREGC_CONFIG_H

#include <stddef.h>

#include "treg/error.h"

/* The settings tregc takes from any of the three sources. */
typedef struct tregc_settings {
    const char *server; /* https://HOST:PORT */
    const char *token;
    const char *ca; /* PEM file of trusted CAs; NULL: the system store */
} tregc_settings;

typedef struct tregc_config {
    char *server, *token, *ca; /* owned; NULL when no source sets them */
    char *file;                /* the config file read, NULL when none was */
} tregc_config;

/* The config file's path: TREG_CONFIG, $XDG_CONFIG_HOME/treg/client.conf or
 * $HOME/.config/treg/client.conf.  *explicit is 1 for TREG_CONFIG (a missing
 * file is then an error).  Returns malloc'd text, NULL when no path can be
 * formed (no HOME). */
char *tregc_config_path(int *explicit_path);

/* Reads a `key = value` file (keys server, token, ca; '#' comments and
 * blank lines) into cfg, keeping what is already set.  A relative ca is
 * taken relative to the file's folder; "~/" is $HOME.  Returns 0, or -1
 * with "PATH:LINE: problem" in err. */
int tregc_config_read_file(tregc_config *cfg, const char *path, treg_error *err);

/* Fills cfg from flags (fields may be NULL), then the environment, then the
 * config file.  Returns 0, or -1 with a message in err. */
int tregc_config_resolve(tregc_config *cfg, const tregc_settings *flags, treg_error *err);

void tregc_config_free(tregc_config *cfg);

#endif
