// The bounds a script is held to beyond its schema. Each is far above what a real script needs and below where
// loading or serving it would stop being cheap or possible.

/**
 * Deepest a tool input may nest, counting the input object as level 1. A reply carries it through V8's recursive
 * JSON.stringify, which overflows near 4,100 levels (4,103 measured on Node 20), and the pinned CLI passes inputs
 * through unchanged up to about 4,100; 4,000 leaves room for the reply's envelope and the server's own stack.
 */
export const MAX_TOOL_INPUT_DEPTH = 4_000;

/** Levels a script nests above a tool input: the document, trajectories, one trajectory, turns, one turn, content, one block. */
export const LEVELS_ABOVE_TOOL_INPUT = 7;

/**
 * Most JSON text a script may expand to once its aliases are copied out. The CLI sends every earlier tool input back
 * in each request, and the server refuses a body over 32 MiB, so a script past this could never be played through.
 */
export const MAX_EXPANDED_SCRIPT_BYTES = 32 * 1024 * 1024;

/** Most aliases one YAML file may hold: yaml rescans the document for every alias it resolves (quadratic time). */
export const MAX_YAML_ALIASES = 1_000;
