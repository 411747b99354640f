By0J€dófuv
fuvl[ljRûóg
T[gRT[,RW5b`-9bÜT},RT}XRxb`-9bS-}S}X¹x~xwW~rW5fbIKih6~rwz~rvz*bIih60zí*vzB*·D~F"9u±rÏuBròq~Fq