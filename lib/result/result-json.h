/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result-json.h - the result file: the model as JSON ("schema": "whyslow/1"), written atomically. */
#ifndef WS_RESULT_JSON_H
#define WS_RESULT_JSON_H

#include "result/result.h"

#include <jansson.h>

#define WS_SCHEMA "whyslow/1"

/* The whole result as a new JSON object (caller json_decref()s). Non-finite numbers become null. */
json_t *ws_result_to_json(const struct ws_result *r);

/*
 * Fill `r` (initialised by the caller) from JSON. Lenient, so that samples from elsewhere can be analysed:
 * only variants[].name and variants[].metrics.<m>.samples are required; a "schema" other than whyslow/1 is
 * refused. `source` names the input in messages. Returns 0 or -EINVAL (the message says where).
 */
int ws_result_from_json(const json_t *root, struct ws_result *r, const char *source);

/*
 * Serialise and write atomically (temp file + rename). Returns 0 or -errno. When `path` cannot be written
 * (a full disk, EIO, its directory removed since the check), the result is written to a new file
 * whyslow-rescued-XXXXXX.json in $TMPDIR (else /tmp), else the current directory, else $HOME, and the one
 * error line names both; the return is still the error.
 */
int ws_result_save(const struct ws_result *r, const char *path);

/*
 * Write the result to a new rescue file, as ws_result_save() does when its path fails: for a session whose
 * other exports failed and that saved no result file. Returns its path (caller frees) or NULL.
 */
char *ws_result_rescue(const struct ws_result *r);

/* Read and parse a file ("-" reads stdin). Returns 0, -errno or -EINVAL. */
int ws_result_load(const char *path, struct ws_result *r);

#endif
