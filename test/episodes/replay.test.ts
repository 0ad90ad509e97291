/** Episodes: staged as LIGHT did, replayed in the engine, and checked as a corpus. */
import { describe, expect, it } from 'vitest';
import { parseEpisodes, type Episode } from '../../server/episodes/episode.js';
import { replayEpisode } from '../../server/episodes/replay.js';
import { stageEpisode } from '../../server/episodes/stage.js';
import { checkCorpus } from '../../server/episodes/corpus-check.js';
import { littleWorld } from '../fixtures/little-world.js';

const good: Episode = {
  id: 'ep-1',
  room: 'shed',
  characters: ['gardener', 'orc'],
  turns: [
    { speaker: 'gardener', say: 'What are you doing in my shed, orc?', emote: 'frown' },
    { speaker: 'orc', say: 'Looking for something shiny.' },
    { speaker: 'gardener', say: 'Take this apple and go.', action: 'give apple to orc' },
    { speaker: 'orc', say: 'An apple? Fine.', action: 'eat apple' },
    { speaker: 'gardener', say: 'Now off with you.', action: 'get rake' },
    { speaker: 'orc', say: 'I am not afraid of a rake.', action: 'steal flask of ale from gardener' },
    { speaker: 'gardener', say: 'Thief!', action: 'hit orc' },
    { speaker: 'orc', say: 'Ow! I am going.', emote: 'growl' },
  ],
};

describe('episodes', () => {
  it('stages the characters in the room, alone with its objects and their own', () => {
    const w = littleWorld();
    const staged = stageEpisode(w, 'shed', ['gardener', 'orc']);
    expect(staged.charactersIn('shed').map((c) => c.id).sort()).toEqual(['gardener', 'orc']);
    expect(staged.placement('ghost')).toBeUndefined();
    expect(staged.placement('lantern')).toEqual({ parent: 'ghost', rel: 'carried' });
    expect(staged.placement('hat')).toEqual({ parent: 'gardener', rel: 'carried' });
    expect(w.roomOf('gardener')).toBe('garden'); // the original is untouched
  });

  it('replays a valid episode without problems', () => {
    expect(replayEpisode(littleWorld(), good)).toEqual([]);
  });

  it('reports actions that do not execute, non-canonical text, unknown emotes and strangers', () => {
    const bad: Episode = {
      ...good,
      turns: [
        { speaker: 'gardener', say: 'Hi.', action: 'give rake to orc' },
        { speaker: 'orc', say: 'Hm.', action: 'take off iron helmet' },
        { speaker: 'orc', say: 'Hm.', emote: 'juggle' },
        { speaker: 'ghost', say: 'Boo.' },
      ],
    };
    const problems = replayEpisode(littleWorld(), bad).map((p) => `${p.turn}: ${p.message}`);
    expect(problems).toEqual([
      '0: action "give rake to orc" failed: You aren\'t carrying the rake.',
      '1: "take off iron helmet" is not canonical; the engine executed "remove iron helmet"',
      '2: "juggle" is not one of the 22 emotes',
      '3: speaker "ghost" is not one of the episode\'s characters',
    ]);
  });

  it('parses JSONL and names malformed lines', () => {
    const text = `${JSON.stringify(good)}\n\n{"id": "x"\n${JSON.stringify({ ...good, id: 'e2', turns: [{ speaker: 'orc', say: '' }] })}\n`;
    const { episodes, errors } = parseEpisodes(text, 'eps.jsonl');
    expect(episodes.map((e) => e.id)).toEqual(['ep-1']);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^eps\.jsonl:3: not valid JSON/),
      'eps.jsonl:4: episode e2: turns.0: says nothing and does nothing',
    ]);
  });

  it('finds short, duplicated and copied episodes', () => {
    const copy = { ...good, id: 'ep-2' };
    const short = { ...good, id: 'ep-3', turns: good.turns.slice(0, 3).map((t, i) => ({ ...t, say: `${t.say} (${i})` })) };
    const report = checkCorpus(littleWorld(), [good, copy, short, { ...good, id: 'ep-1', turns: good.turns.map((t) => ({ ...t, say: t.say + '!' })) }]);
    const messages = report.problems.map((p) => `${p.episode}: ${p.message}`);
    expect(messages).toContain('ep-2: same dialogue as episode ep-1');
    expect(messages).toContain('ep-3: 3 turns; at least 8 needed');
    expect(messages).toContain('ep-1: id used by 2 episodes');
  });
});
