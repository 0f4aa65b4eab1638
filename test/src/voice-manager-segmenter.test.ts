/**
 * Speech segmentation (seed §8, reference B.6): the first segment is one sentence or clause of at most
 * 60 characters; later segments pack whole sentences up to 240 (or the engine's smaller limit); long
 * sentences are cut at clauses, then words; a word longer than the limit is hard-cut.
 */
import { expect } from 'chai';
import { SpeechSegmenter, splitForSpeech } from '@keel/voice';

const sentence = (n: number, words = 8): string => `Sentence number ${n} has ${Array.from({ length: words - 4 }, () => 'word').join(' ')}.`;

describe('voice manager: segmentation (60 / 240)', () => {
  it('emits a short text as one segment, whitespace collapsed', () => {
    expect(splitForSpeech('  Hello   there.\n ')).to.deep.equal(['Hello there.']);
    expect(splitForSpeech('')).to.deep.equal([]);
  });

  it('a text of exactly 60 characters is one segment; 61 is cut', () => {
    const sixty = 'a'.repeat(29) + ' ' + 'b'.repeat(30);
    expect(sixty.length).to.equal(60);
    expect(splitForSpeech(sixty)).to.deep.equal([sixty]);
    const sixtyOne = sixty + 'c';
    const parts = splitForSpeech(sixtyOne);
    expect(parts[0]).to.equal('a'.repeat(29));
    expect(parts.join(' ')).to.equal(sixtyOne);
  });

  it('the first segment is the first sentence when it fits 60 characters', () => {
    const text = `The first sentence is short. ${sentence(2)} ${sentence(3)}`;
    const parts = splitForSpeech(text);
    expect(parts[0]).to.equal('The first sentence is short.');
  });

  it('the first segment is a clause when the first sentence is longer than 60', () => {
    const text = 'When the weather turns, we go inside and light a fire that burns until morning comes. Then we sleep.';
    const parts = splitForSpeech(text);
    expect(parts[0]).to.equal('When the weather turns,');
    expect(parts[0]!.length).to.be.at.most(60);
  });

  it('without any boundary the first segment is cut at the last space within 60', () => {
    const text = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    const parts = splitForSpeech(text);
    expect(parts[0]!.length).to.be.at.most(60);
    expect(text.startsWith(parts[0]!)).to.equal(true);
    expect(text[parts[0]!.length]).to.equal(' ');
  });

  it('a boundary after 60 characters does not count for the first segment', () => {
    const text = `${'x '.repeat(35)}end. More text follows here.`;
    const parts = splitForSpeech(text);
    expect(parts[0]!.length).to.be.at.most(60);
    expect(parts[0]!.endsWith('.')).to.equal(false);
  });

  it('later segments pack whole sentences up to 240 characters, never splitting a sentence that fits', () => {
    const sentences = Array.from({ length: 12 }, (_, i) => sentence(i, 10));
    const text = ['Short start.', ...sentences].join(' ');
    const parts = splitForSpeech(text);
    expect(parts[0]).to.equal('Short start.');
    for (const part of parts.slice(1)) {
      expect(part.length).to.be.at.most(240);
      expect(part.endsWith('.')).to.equal(true);
    }
    // Packing: each later segment could not take the next sentence without passing 240.
    for (let i = 1; i < parts.length - 1; i++) {
      const next = parts[i + 1]!.split(/(?<=\.) /)[0]!;
      expect(parts[i]!.length + 1 + next.length).to.be.greaterThan(240);
    }
    expect(parts.join(' ')).to.equal(text);
  });

  it('a text of 60 + 240 characters: segment limits hold exactly at the boundaries', () => {
    const first = `${'f'.repeat(58)}.`; // 59 characters
    const later = Array.from({ length: 4 }, (_, i) => `${String(i).repeat(58)}.`).join(' '); // 4 × 59 + 3 = 239
    const parts = splitForSpeech(`${first} ${later}`);
    expect(parts).to.deep.equal([first, later]);
    expect(parts[1]!.length).to.equal(239);
  });

  it("honours the engine's smaller limit", () => {
    const text = ['Go.', ...Array.from({ length: 6 }, (_, i) => sentence(i))].join(' ');
    const parts = splitForSpeech(text, { maxChars: 100 });
    for (const part of parts) expect(part.length).to.be.at.most(100);
    expect(parts.length).to.be.greaterThan(3);
  });

  it('a sentence longer than the limit is cut at a clause, then at words', () => {
    const clause = 'this clause has a handful of words in it';
    const long = `Start. ${Array.from({ length: 10 }, () => clause).join(', ')}.`;
    const parts = splitForSpeech(long);
    for (const part of parts) expect(part.length).to.be.at.most(240);
    expect(parts[1]!.endsWith(',')).to.equal(true);
    const noClauses = `Start. ${'word '.repeat(120)}end.`;
    const wordParts = splitForSpeech(noClauses);
    for (const part of wordParts) {
      expect(part.length).to.be.at.most(240);
      expect(part).to.match(/^(word ?)+(end\.)?$|^Start\.$/);
    }
  });

  it('a word longer than the limit is hard-cut at the limit', () => {
    const word = 'z'.repeat(300);
    const parts = splitForSpeech(`Hi. ${word}`);
    expect(parts).to.deep.equal(['Hi.', 'z'.repeat(240), 'z'.repeat(60)]);
    expect(splitForSpeech('y'.repeat(70))).to.deep.equal(['y'.repeat(60), 'y'.repeat(10)]);
  });

  it('never splits a surrogate pair on a hard cut', () => {
    const text = `${'a'.repeat(59)}${'😀'.repeat(10)}`;
    const parts = splitForSpeech(text);
    expect(parts.join('')).to.equal(text);
    for (const part of parts) expect(part).to.not.match(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });

  it('terminators need a following space (3.14 and e.g. stay whole); closing quotes stay with their sentence', () => {
    expect(splitForSpeech('Pi is 3.14 and that is final, friends, and nobody will change it. Yes it is.')[0]).to.equal('Pi is 3.14 and that is final,');
    expect(splitForSpeech('He said "no." Then he walked away from the building without a word.')[0]).to.equal('He said "no."');
    expect(splitForSpeech('Really?! That is surprising to hear after all this time, honestly.')[0]).to.equal('Really?!');
  });

  it('newlines are boundaries; full-width terminators need no space', () => {
    expect(splitForSpeech('A heading line\nThen a paragraph that goes on for quite a while longer than sixty characters.')[0]).to.equal('A heading line');
    expect(splitForSpeech('今日は良い天気です。明日も晴れるでしょう。' + 'あ'.repeat(60))[0]).to.equal('今日は良い天気です。');
  });

  describe('incremental (the text-stream bridge)', () => {
    it('waits for a boundary, then emits the first clause as soon as it is complete', () => {
      const s = new SpeechSegmenter();
      s.push('Hello');
      expect(s.take()).to.equal(undefined);
      s.push(' there,');
      // The comma is not followed by whitespace yet: it may still be "there,5".
      expect(s.take()).to.equal(undefined);
      s.push(' how are');
      expect(s.take()).to.equal('Hello there,');
      expect(s.take()).to.equal(undefined);
    });

    it('packs the sentences that arrived while the synthesiser was busy; waits on a partial sentence', () => {
      const s = new SpeechSegmenter();
      s.push('One. ');
      expect(s.take()).to.equal('One.');
      s.push('Two is here. Three is here. Four is ');
      expect(s.take()).to.equal('Two is here. Three is here.');
      expect(s.take()).to.equal(undefined);
      s.push('coming');
      s.close();
      expect(s.take()).to.equal('Four is coming');
      expect(s.take()).to.equal(undefined);
      expect(s.push('late')).to.equal(false);
    });

    it('cuts a pending sentence once it passes the limit, without waiting for its end', () => {
      const s = new SpeechSegmenter({ maxChars: 50 });
      s.push('Go. ');
      expect(s.take()).to.equal('Go.');
      s.push('alpha beta gamma delta epsilon zeta eta theta iota kappa lambda');
      const cut = s.take();
      expect(cut).to.be.a('string');
      expect(cut!.length).to.be.at.most(50);
      expect(cut!.startsWith('alpha beta')).to.equal(true);
    });

    it('minChars: a boundary counts only once that many characters are buffered', () => {
      const s = new SpeechSegmenter({ minChars: 10 });
      s.push('Hi, there is more, to come');
      expect(s.take()).to.equal('Hi, there is more,');
    });
  });
});
