import './instrument';
import { runService } from '@svc/runtime';
import { SERVICE } from './app.module';

runService(SERVICE);
