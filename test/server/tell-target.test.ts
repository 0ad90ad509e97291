/** Which player of which world a cross-world tell line names (server/net/tell-target.ts). */
import { describe, expect, it } from 'vitest';
import { matchTellTarget } from '../../server/net/tell-target.js';

const worlds = [
  { world: 'east', names: ['kitty', 'old man'] },
  { world: 'west', names: ['Brom', 'old', 'kitty'] },
];

describe('matchTellTarget', () => {
  it('takes the longest whole name, in any case, and the message after it', () => {
    expect(matchTellTarget('old man hello there', worlds)).toEqual({ name: 'old man', worlds: ['east'], text: 'hello there' });
    expect(matchTellTarget('OLD hello', worlds)).toEqual({ name: 'old', worlds: ['west'], text: 'hello' });
    expect(matchTellTarget('brom: good day, smith', worlds)).toEqual({ name: 'Brom', worlds: ['west'], text: 'good day, smith' });
    expect(matchTellTarget('to brom that the cart is late', worlds)).toEqual({ name: 'Brom', worlds: ['west'], text: 'the cart is late' });
  });

  it('matches names whole, not as the start of a word', () => {
    expect(matchTellTarget('bromwell hi', worlds)).toBeNull();
    expect(matchTellTarget('zyx hi', worlds)).toBeNull();
  });

  it('returns every world with a player of that name, and NAME@WORLD picks one', () => {
    expect(matchTellTarget('kitty hi', worlds)).toEqual({ name: 'kitty', worlds: ['east', 'west'], text: 'hi' });
    expect(matchTellTarget('kitty@west hi', worlds)).toEqual({ name: 'kitty', worlds: ['west'], text: 'hi' });
    expect(matchTellTarget('kitty@WEST: hi', worlds)).toEqual({ name: 'kitty', worlds: ['west'], text: 'hi' });
    expect(matchTellTarget('brom@east hi', worlds)).toBeNull();
    expect(matchTellTarget('kitty@north hi', worlds)).toBeNull();
  });

  it('leaves the message empty when there is none', () => {
    expect(matchTellTarget('brom', worlds)).toEqual({ name: 'Brom', worlds: ['west'], text: '' });
  });
});
