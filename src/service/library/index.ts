/**
 * The answer library: list, add, retire, and record an accepted answer.
 */
export { addAnswers, type AnswerListQuery, type AnswerView, type AnswerViewer, type CuratedInput, getAnswer, libraryStats, listAnswers, retireAnswer } from './answers.js';
export { recordAnswer } from './record-answer.js';
