/*
 * libFuzzer harness for libyaml 0.2.5, which ships none (evotest bench/fuzz).
 *
 * The input is a YAML stream. Three passes over it:
 *  1. the event parser (yaml_parser_parse) until the end of the stream or an error,
 *     re-emitting every event through the emitter into a memory buffer;
 *  2. the document loader (yaml_parser_load) for every document of the stream;
 *  3. the token scanner (yaml_parser_scan).
 * Every pass stops at the first error; all memory is freed before returning.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <yaml.h>

#define MAX_EVENTS 10000
#define MAX_DOCS 100
#define MAX_TOKENS 20000

static unsigned char out_buf[1 << 16];

static void parse_and_emit(const uint8_t *data, size_t size) {
  yaml_parser_t parser;
  yaml_emitter_t emitter;
  yaml_event_t event;
  size_t written = 0;
  int emit_ok = 1;
  int n;

  if (!yaml_parser_initialize(&parser))
    return;
  if (!yaml_emitter_initialize(&emitter)) {
    yaml_parser_delete(&parser);
    return;
  }
  yaml_parser_set_input_string(&parser, data, size);
  yaml_emitter_set_output_string(&emitter, out_buf, sizeof(out_buf), &written);
  yaml_emitter_set_unicode(&emitter, 1);

  for (n = 0; n < MAX_EVENTS; n++) {
    int done;
    if (!yaml_parser_parse(&parser, &event))
      break;
    done = (event.type == YAML_STREAM_END_EVENT);
    if (emit_ok) {
      /* yaml_emitter_emit takes ownership of the event, even on failure. */
      emit_ok = yaml_emitter_emit(&emitter, &event);
    } else {
      yaml_event_delete(&event);
    }
    if (done)
      break;
  }
  yaml_emitter_delete(&emitter);
  yaml_parser_delete(&parser);
}

static void load_documents(const uint8_t *data, size_t size) {
  yaml_parser_t parser;
  yaml_document_t doc;
  int n;

  if (!yaml_parser_initialize(&parser))
    return;
  yaml_parser_set_input_string(&parser, data, size);
  for (n = 0; n < MAX_DOCS; n++) {
    yaml_node_t *root;
    if (!yaml_parser_load(&parser, &doc))
      break;
    root = yaml_document_get_root_node(&doc);
    yaml_document_delete(&doc);
    if (root == NULL)
      break; /* end of the stream */
  }
  yaml_parser_delete(&parser);
}

static void scan_tokens(const uint8_t *data, size_t size) {
  yaml_parser_t parser;
  yaml_token_t token;
  int n;

  if (!yaml_parser_initialize(&parser))
    return;
  yaml_parser_set_input_string(&parser, data, size);
  for (n = 0; n < MAX_TOKENS; n++) {
    int done;
    if (!yaml_parser_scan(&parser, &token))
      break;
    done = (token.type == YAML_STREAM_END_TOKEN || token.type == YAML_NO_TOKEN);
    yaml_token_delete(&token);
    if (done)
      break;
  }
  yaml_parser_delete(&parser);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1 << 20))
    return 0;
  parse_and_emit(data, size);
  load_documents(data, size);
  scan_tokens(data, size);
  return 0;
}
