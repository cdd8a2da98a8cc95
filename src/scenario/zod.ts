// zod, told not to compile its checks with `new Function`: the site's Content-Security-
// Policy allows no eval (src/components/csp.ts), and zod's probe for it, though caught,
// would be reported as a violation. Scenario modules import `z` from here.
import { z } from 'zod';

z.config({ jitless: true });

export { z };
