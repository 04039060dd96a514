export { casefoldPython, hasLoneSurrogate, isBlankPython, isSpacePython, splitPython, stripPython, utf8ByteLength } from "./python-text.js";
export { formatFixed, median, roundHalfEven } from "./python-number.js";
export { DEFAULT_MAX_PATH_BYTES, checkRelativePath } from "./check-relative-path.js";
export type { GitPathRule, RelativePathOptions, RelativePathProblem, RelativePathRule } from "./check-relative-path.js";
export { ROOT_FIELD, formatIssuePath } from "./format-issue-path.js";
