/* Recipes and the record of programs (program_record.c): what a program is
 * built from, kept so that it can be built again, and the per-device record
 * in the disk-cache folder of every program a program (an executable, or
 * whatever name the caller gives) used, which clgpu_prebuild replays. */
#ifndef CLGPU_SRC_PROGRAM_RECORD_H
#define CLGPU_SRC_PROGRAM_RECORD_H

#include <stddef.h>

#include <clgpu/context.h>
#include <clgpu/program.h>

/* The most parts a program is built from (the elementwise family's). */
#define CLGPU__MAX_PARTS 8

/* One part of a recipe: an embedded file by its stem (`name`), or generated
 * text with the label its #line directive gives it. Strings are malloc'd. */
typedef struct clgpu__recipe_part {
  char *name;
  char *text;
  char *label;
} clgpu__recipe_part;

/* What one program is built from: its parts, its defines (names and values
 * malloc'd; a value may be NULL), its options (NULL for none), and the
 * program-cache key they gave when the recipe was taken. */
typedef struct clgpu__recipe {
  size_t num_parts;
  clgpu__recipe_part parts[CLGPU__MAX_PARTS];
  size_t num_defines;
  clgpu_define *defines;
  char *options;
  unsigned char key[32];
} clgpu__recipe;

/* Recipes, no two with the same key. */
typedef struct clgpu__recipe_list {
  clgpu__recipe *items;
  size_t count, capacity;
} clgpu__recipe_list;

/* A part of a request as the program cache sees it: `name` for an embedded
 * file, else `text` and `label`. Borrowed. */
typedef struct clgpu__recipe_source {
  const char *name;
  const char *text;
  const char *label;
} clgpu__recipe_source;

void clgpu__recipe_free(clgpu__recipe *recipe);
void clgpu__recipe_list_free(clgpu__recipe_list *list);

/* Append a copy of the request to the list unless a recipe of that key is
 * there. 1 appended, 0 already there, -1 out of memory (or more than
 * CLGPU__MAX_PARTS parts). */
int clgpu__recipe_list_add(clgpu__recipe_list *list, const clgpu__recipe_source *parts,
                           size_t num_parts, const clgpu_define *defines, size_t num_defines,
                           const char *options, const unsigned char key[32]);

/* The record of programs `name` used on a device, kept in a disk-cache
 * folder. */
typedef struct clgpu__record clgpu__record;

/* The record named `name` (NULL or "": the executable's file name, read from
 * /proc/self/exe, else "default") for the device in `folder`. NULL when
 * `folder` is NULL, the name is "off", or out of memory. Reads nothing yet. */
clgpu__record *clgpu__record_open(const char *folder, const clgpu_device_info *info,
                                  const char *name);
void clgpu__record_close(clgpu__record *record);

/* The record's name (malloc'd copy owned by the record). */
const char *clgpu__record_name(const clgpu__record *record);

/* Note that a program was built or loaded: its recipe is added to the file
 * when the file does not hold its key yet. A note of a key the record has
 * not seen reads the file (so the first note does, once); a note of a key
 * it has read or written touches no file. Never fails for the
 * caller: a record that cannot be read or written is simply not kept. At
 * most CLGPU__RECORD_MAX recipes are kept, the oldest dropped first. */
void clgpu__record_note(clgpu__record *record, const clgpu__recipe_source *parts, size_t num_parts,
                        const clgpu_define *defines, size_t num_defines, const char *options,
                        const unsigned char key[32]);
#define CLGPU__RECORD_MAX 512

/* The recipes the record's file holds now, oldest first (an empty list when
 * there is no file or it is unusable). 0, or -1 out of memory. */
int clgpu__record_read(clgpu__record *record, clgpu__recipe_list *out);

#endif
