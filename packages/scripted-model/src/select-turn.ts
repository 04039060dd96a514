import type { MessagesRequest, Script, Trajectory, Turn } from "./schema.js";

/** Longest echo of request text placed in error messages and logs. */
export const PROMPT_PREFIX_CHARS = 200;

type RequestContent = MessagesRequest["system"];

function textBlocksOf(content: RequestContent): string[] {
  if (content === undefined) return [];
  if (typeof content === "string") return [content];
  const texts: string[] = [];
  for (const block of content) {
    if (block.type === "text" && typeof block["text"] === "string") texts.push(block["text"]);
  }
  return texts;
}

/** The texts a match rule may look at, pulled from a request that already passed the schema. */
export interface RequestTexts {
  readonly system: string;
  readonly firstUser: string;
  /** The last text block of the first user message: the typed prompt, after the CLI's system reminders. */
  readonly prompt: string;
}

/** Extracts system and first-user text; trusts only the schema-checked shape. */
export function extractRequestTexts(request: MessagesRequest): RequestTexts {
  const firstUser = request.messages.find((message) => message.role === "user");
  const userTexts = firstUser === undefined ? [] : textBlocksOf(firstUser.content);
  return {
    system: textBlocksOf(request.system).join("\n"),
    firstUser: userTexts.join("\n"),
    prompt: userTexts.at(-1) ?? "",
  };
}

/** Counts assistant messages already in the conversation: the index of the turn to answer with. */
export function countConversationPosition(request: MessagesRequest): number {
  return request.messages.filter((message) => message.role === "assistant").length;
}

function matches(trajectory: Trajectory, texts: RequestTexts): boolean {
  const { contains, regex } = trajectory.match;
  const haystacks =
    trajectory.match.in === "system"
      ? [texts.system]
      : trajectory.match.in === "first_user"
        ? [texts.firstUser]
        : [texts.system, texts.firstUser];
  const pattern = regex === undefined ? undefined : new RegExp(regex, "u");
  return haystacks.some(
    (text) => (contains === undefined || text.includes(contains)) && (pattern === undefined || pattern.test(text)),
  );
}

/** Truncates echoed request text so logs and error bodies stay bounded. */
export function truncatePrefix(text: string, max = PROMPT_PREFIX_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The outcome of choosing a scripted turn for a request. */
export type TurnSelection =
  | { ok: true; trajectory: Trajectory; position: number; turn: Turn }
  | { ok: false; reason: "unmatched"; message: string; promptPrefix: string }
  | { ok: false; reason: "beyond_script"; message: string; trajectory: Trajectory; position: number };

/** Picks the first trajectory (script order) whose rule matches, and its turn by conversation position. */
export function selectTurn(script: Script, request: MessagesRequest): TurnSelection {
  const texts = extractRequestTexts(request);
  const trajectory = script.trajectories.find((candidate) => matches(candidate, texts));
  if (trajectory === undefined) {
    const promptPrefix = truncatePrefix(texts.prompt);
    return {
      ok: false,
      reason: "unmatched",
      promptPrefix,
      message: `scripted-model: no trajectory matches this request; prompt starts: ${JSON.stringify(promptPrefix)}`,
    };
  }
  const position = countConversationPosition(request);
  const turn = trajectory.turns[position];
  if (turn === undefined) {
    return {
      ok: false,
      reason: "beyond_script",
      trajectory,
      position,
      message:
        `scripted-model: trajectory "${trajectory.name}" has ${trajectory.turns.length} turn(s); ` +
        `the request is at conversation position ${position} (assistant messages so far), beyond the script`,
    };
  }
  return { ok: true, trajectory, position, turn };
}
