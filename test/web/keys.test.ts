import { describe, expect, it } from 'vitest';
import { commandFor, keepSelection, moveSelection, SHORTCUTS, type KeyPress } from '../../web/src/keys.js';

const press = (key: string, more: Partial<KeyPress> = {}): KeyPress => ({ key, target: 'other', dialogOpen: false, ...more });

describe('commandFor', () => {
  it('maps the queue letters', () => {
    expect(['j', 'k', 'a', 'r', 'n', 'o', 'm', '?'].map((k) => commandFor(press(k)))).toEqual(['next', 'prev', 'accept', 'reject', 'note', 'open', 'mine', 'help']);
  });

  it('leaves letters typed into a field alone, but Escape still leaves the field', () => {
    expect(commandFor(press('a', { target: 'field' }))).toBeNull();
    expect(commandFor(press('r', { target: 'field' }))).toBeNull();
    expect(commandFor(press('Escape', { target: 'field' }))).toBe('escape');
  });

  it('works while a button or link has focus (they own Enter and Space, not letters)', () => {
    expect(commandFor(press('j', { target: 'control' }))).toBe('next');
    expect(commandFor(press('Enter', { target: 'control' }))).toBeNull();
  });

  it('ignores modified keys (browser and screen-reader shortcuts) and keys while a dialog is open', () => {
    expect(commandFor(press('r', { ctrlKey: true }))).toBeNull();
    expect(commandFor(press('a', { metaKey: true }))).toBeNull();
    expect(commandFor(press('j', { altKey: true }))).toBeNull();
    expect(commandFor(press('a', { dialogOpen: true }))).toBeNull();
    expect(commandFor(press('Escape', { dialogOpen: true }))).toBeNull();
  });

  it('is case-sensitive: A and R are not shortcuts', () => {
    expect(commandFor(press('A'))).toBeNull();
    expect(commandFor(press('x'))).toBeNull();
  });

  it('lists every letter it handles in the ? overlay', () => {
    const listed = SHORTCUTS.flatMap((s) => s.keys);
    for (const key of ['j', 'k', 'a', 'r', 'n', 'o', 'm', '?', 'Esc']) expect(listed).toContain(key);
  });
});

describe('moveSelection', () => {
  const ids = ['p1', 'p2', 'p3'];
  it('moves and stops at both ends', () => {
    expect(moveSelection(ids, 'p1', 1)).toBe('p2');
    expect(moveSelection(ids, 'p3', 1)).toBe('p3');
    expect(moveSelection(ids, 'p2', -1)).toBe('p1');
    expect(moveSelection(ids, 'p1', -1)).toBe('p1');
  });
  it('starts at the first when nothing (or something gone) is selected', () => {
    expect(moveSelection(ids, null, 1)).toBe('p1');
    expect(moveSelection(ids, 'gone', -1)).toBe('p1');
    expect(moveSelection([], null, 1)).toBeNull();
  });
});

describe('keepSelection', () => {
  it('keeps a selection that is still there, even when new proposals arrive', () => {
    expect(keepSelection(['p1', 'p2'], ['p1', 'p2', 'p3'], 'p2')).toBe('p2');
  });
  it('moves to the next proposal when the selected one was decided', () => {
    expect(keepSelection(['p1', 'p2', 'p3'], ['p1', 'p3'], 'p2')).toBe('p3');
  });
  it('skips over neighbours that left too, and falls back to the previous at the end', () => {
    expect(keepSelection(['p1', 'p2', 'p3', 'p4'], ['p1', 'p4'], 'p2')).toBe('p4');
    expect(keepSelection(['p1', 'p2', 'p3'], ['p1', 'p2'], 'p3')).toBe('p2');
  });
  it('selects the first on load and nothing when the queue is empty', () => {
    expect(keepSelection([], ['p1', 'p2'], null)).toBe('p1');
    expect(keepSelection(['p1'], [], 'p1')).toBeNull();
  });
});
