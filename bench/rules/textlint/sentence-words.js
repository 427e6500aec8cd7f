"use strict";
// A textlint rule for the bench: a sentence of more than `max` words (default 30) is an error.
// It splits sentences the way textlint-rule-sentence-length does (sentence-splitter 5, wrapped
// lines joined), but counts words, not characters, so textlint gets the same limit as kapi.
// textlint-rule-en-max-word-count counts words too, but its old splitter ends a sentence at
// every line break, so it misses most long sentences in hard-wrapped Markdown.
const { splitAST, SentenceSplitterSyntax } = require("sentence-splitter");
const { StringSource } = require("textlint-util-to-string");

module.exports = function sentenceWords(context, options = {}) {
  const max = options.max ?? 30;
  const { Syntax, RuleError, report } = context;
  return {
    [Syntax.Paragraph](node) {
      for (const sentence of splitAST(node).children) {
        if (sentence.type !== SentenceSplitterSyntax.Sentence) continue;
        const text = new StringSource(sentence).toString();
        const words = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
        if (words > max) {
          report(
            node,
            new RuleError(`Sentence of ${words} words; the limit is ${max}.`, {
              index: sentence.range[0] - node.range[0],
            }),
          );
        }
      }
    },
  };
};
