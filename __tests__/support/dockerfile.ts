/** A Dockerfile read as tests need it: instructions in order, continuation lines joined. */

export interface DockerStep {
  /** The instruction, upper case (FROM, RUN, ...). */
  word: string;
  rest: string;
  /** The build stage the step belongs to (0 before the first FROM: a global ARG). */
  stage: number;
}

export function dockerSteps(text: string): DockerStep[] {
  let stage = 0;
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const [first = '', ...rest] = l.split(/\s+/);
      const word = first.toUpperCase();
      if (word === 'FROM') stage += 1;
      return { word, rest: rest.join(' '), stage };
    });
}
